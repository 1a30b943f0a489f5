/** URL helpers shared by every capability. */
import { ValidationError } from '../errors.ts';

/** Resolves `href` against `base`; undefined for unparsable or non-navigable references. */
export function toAbsoluteUrl(href: string, base: string): string | undefined {
  const trimmed = href.trim();
  if (!trimmed || trimmed.startsWith('javascript:')) return undefined;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return undefined;
  }
}

/**
 * Parses a user-given URL to scrape. A bare host (`example.com/page`) gets `https://`, as users of
 * the hosted service expect; anything but http(s) is refused. @throws INVALID_URL
 */
export function parseTargetUrl(input: string): URL {
  const trimmed = input.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(trimmed) ? trimmed : `https://${trimmed}`;
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
