/**
 * Bytes to text with the right character set. Order of trust follows the WHATWG encoding sniffing
 * algorithm (BOM, then the HTTP header, then `<meta charset>` in the first KiB); when none of them
 * declares a charset we check for valid UTF-8 and otherwise ask a statistical detector, because
 * the WHATWG fallback (windows-1252) garbles undeclared Japanese, Chinese or Cyrillic pages.
 */
import chardet from 'chardet';
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';

/** Text decoded from a response body, and the charset it was read as. */
export interface DecodedText {
  text: string;
  /** WHATWG name of the charset used, e.g. `utf-8`, `windows-1252`, `shift_jis`. */
  charset: string;
  /** How the charset was chosen. */
  source: 'bom' | 'header' | 'meta' | 'detected' | 'default';
}

// Detection looks at a prefix only: enough bytes for a stable guess without scanning 10 MB pages.
const detectionSampleBytes = 64 * 1024;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the charset parameter of a Content-Type header, if any. */
export function charsetFromContentType(contentType: string | undefined): string | undefined {
  const match = contentType ? /charset\s*=\s*["']?([^"';\s]+)/i.exec(contentType) : null;
  return match?.[1];
}

/** Decodes an HTML (or text) body using the declared or detected charset. */
export function decodeHtml(body: Uint8Array, contentType: string | undefined): DecodedText {
  const headerCharset = charsetFromContentType(contentType);
  const sniffer = new Sniffer({
    maxBytes: 1024,
    ...(headerCharset && isSupportedCharset(headerCharset)
      ? { transportLayerEncodingLabel: headerCharset }
      : {}),
  });
  sniffer.write(body);
  if (sniffer.resultType !== ResultType.DEFAULT) {
    const source =
      sniffer.resultType === ResultType.BOM
        ? 'bom'
        : sniffer.resultType === ResultType.PASSED
          ? 'header'
          : 'meta';
    return {
      text: decodeWith(body, sniffer.encoding),
      charset: normalise(sniffer.encoding),
      source,
    };
  }
  return decodeUndeclared(body);
}

function decodeUndeclared(body: Uint8Array): DecodedText {
  const sample = body.subarray(0, detectionSampleBytes);
  const truncated = body.length > sample.length;
  const sampleText = utf8TextOf(sample, truncated);
  if (sampleText !== undefined) {
    // A sample that is the whole body is the page's text already: decoding it again made a
    // second copy of every such page.
    const text = truncated ? decodeWith(body, 'utf-8') : sampleText;
    return { text, charset: 'utf-8', source: 'detected' };
  }
  const guess = chardet.detect(sample);
  if (guess && isSupportedCharset(guess)) {
    return { text: decodeWith(body, guess), charset: normalise(guess), source: 'detected' };
  }
  return { text: decodeWith(body, 'windows-1252'), charset: 'windows-1252', source: 'default' };
}

/** The sample decoded as UTF-8 (its cut last character left out), or undefined if it is not UTF-8. */
function utf8TextOf(sample: Uint8Array, truncated: boolean): string | undefined {
  try {
    // A sample cut mid-character is still UTF-8: drop up to 3 trailing continuation bytes.
    let end = sample.length;
    if (truncated) {
      for (let back = 1; back <= 3 && end - back >= 0; back++) {
        const byte = sample[end - back] ?? 0;
        if ((byte & 0xc0) === 0xc0) {
          end -= back;
          break;
        }
        if ((byte & 0x80) === 0) break;
      }
    }
    return strictUtf8.decode(sample.subarray(0, end));
  } catch {
    return undefined;
  }
}

function isSupportedCharset(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

function normalise(label: string): string {
  return new TextDecoder(label).encoding;
}

function decodeWith(body: Uint8Array, label: string): string {
  // TextDecoder strips a BOM of its own charset, which is what a browser does.
  return new TextDecoder(label).decode(body);
}
