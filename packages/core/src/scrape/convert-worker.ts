/**
 * The worker thread's side of page conversion (convert-pool.ts): one fetched HTML page (or text
 * response), handed over as UTF-8 bytes, becomes the requested formats, its metadata and its links. It answers
 * with the conversion or the error as data (internal/worker-pool.ts); a task of `undefined` is
 * the pool's probe.
 */
import { serializeError, type WorkerOutcome } from '../internal/worker-pool.ts';
import type { Redaction } from '../convert/redact.ts';
import { convertHtml, convertText, type Conversion, type ConversionOptions } from './convert.ts';

/** One page to convert. */
export interface ConvertTask {
  /** The decoded page as UTF-8; its buffer is transferred, not copied. */
  html: Uint8Array;
  url: string;
  options: ConversionOptions;
  redaction: Redaction | undefined;
  collectLinks: boolean;
  /** Set when the bytes are a text response (JSON, XML, plain text), not HTML: its fence. */
  textLanguage?: string;
}

// One decoder for every page this thread converts.
const decoder = new TextDecoder();

export default function convertPage(
  task: ConvertTask | undefined,
): WorkerOutcome<Conversion | undefined> {
  if (task === undefined) return { ok: true, value: undefined };
  try {
    const source = decoder.decode(task.html);
    return {
      ok: true,
      value:
        task.textLanguage === undefined
          ? convertHtml(source, task.url, task.options, task.redaction, task.collectLinks)
          : convertText(source, task.textLanguage, task.options, task.redaction),
    };
  } catch (error) {
    return { ok: false, error: serializeError(error) };
  }
}
