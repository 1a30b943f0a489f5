/** URL helpers shared by every capability. */
import { ValidationError } from '../errors.ts';

// A page's links are resolved more than once against one base (for the links format, then in
// its cleaned content), and menus and footers repeat theirs: a parse costs about ten lookups.
// Kept for the last base only, bounded for a base that many pages share (`<base href>`), and
// without the long references (data: images) that would make a bounded count a large size.
const resolvedAgainstBase = new Map<string, string | undefined>();
let lastBase = '';
const maxResolved = 4096;
const maxRememberedLength = 2048;

/** Resolves `href` against `base`; undefined for unparsable or non-navigable references. */
export function toAbsoluteUrl(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('javascript:')) return undefined;
  if (trimmed.length > maxRememberedLength) return parsedAgainst(trimmed, base);
  if (base !== lastBase || resolvedAgainstBase.size >= maxResolved) {
    resolvedAgainstBase.clear();
    lastBase = base;
  }
  const known = resolvedAgainstBase.get(trimmed);
  if (known !== undefined || resolvedAgainstBase.has(trimmed)) return known;
  const absolute = parsedAgainst(trimmed, base);
  resolvedAgainstBase.set(trimmed, absolute);
  return absolute;
}

function parsedAgainst(reference: string, base: string): string | undefined {
  try {
    return new URL(reference, base).href;
  } catch {
    return undefined;
  }
}

/**
 * Whether a reference keeps the host of whatever it is resolved against, told without parsing
 * it: a path from the root (`/a`, not `//host`) or a relative path, query or fragment without a
 * scheme. Conservative: the URL parser drops tabs and line breaks anywhere and leading spaces, so
 * a reference that starts with one, or has one after its first `/`, is left to the parser.
 */
export function keepsHost(reference: string): boolean {
  const first = reference.charCodeAt(0);
  if (first === 0x2f) {
    const second = reference.charCodeAt(1);
    return (
      second !== 0x2f && second !== 0x5c && second !== 0x09 && second !== 0x0a && second !== 0x0d
    );
  }
  return relativeStart.test(reference) && !reference.includes(':');
}

const relativeStart = /^[\w.~?#-]/;
const hostWithPort = /^[^:/?#]+:\d+(?:[/?#]|$)/;

/**
 * Parses a user-given URL to scrape. A bare host (`example.com/page`) gets `https://`, as users of
 * the hosted service expect; anything but http(s) is refused. @throws INVALID_URL
 */
export function parseTargetUrl(input: string): URL {
  const trimmed = input.trim();
  // `localhost:8765/x` reads as scheme `localhost:`; a host with a port is no scheme.
  const hasScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed) && !hostWithPort.test(trimmed);
  const withScheme = hasScheme ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new ValidationError(
      `'${input}' is not a valid URL: give an absolute http(s) URL such as https://example.com/page`,
      {
        code: 'INVALID_URL',
        details: [{ path: ['url'], message: 'invalid URL' }],
      },
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError(
      `'${input}' uses ${url.protocol} — only http and https URLs can be scraped`,
      {
        code: 'INVALID_URL',
        details: [{ path: ['url'], message: 'only http and https are supported' }],
      },
    );
  }
  if (
    !url.hostname ||
    (!url.hostname.includes('.') && url.hostname !== 'localhost' && !url.hostname.startsWith('['))
  ) {
    throw new ValidationError(
      `'${input}' has no valid host name: give a URL such as https://example.com/page`,
      {
        code: 'INVALID_URL',
        details: [{ path: ['url'], message: 'invalid host' }],
      },
    );
  }
  return url;
}

/**
 * A URL without its user name and password, for whatever is kept or shown after the request: a
 * password given in a URL opens that one fetch and is never stored (documents, the index, job
 * records) nor echoed. Text that does not parse as a URL is returned as it is.
 */
export function withoutUserinfo(url: string): string {
  // Most URLs have no '@' at all: skip the parse.
  if (!url.includes('@')) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username === '' && parsed.password === '') return url;
  parsed.username = '';
  parsed.password = '';
  return parsed.href;
}
