/**
 * `strictConstrainToURLs`: a run may read only the URLs it was given and the pages
 * under their paths. `https://shop.example/catalog/` allows `https://shop.example/catalog/...`;
 * `https://shop.example/item.html` allows that page (and anything below it as a path). Scheme,
 * host and port must match exactly; a path matches at a `/` boundary, so `/catalog` does not
 * allow `/catalogue`.
 */
import { parseTargetUrl } from '../internal/url.ts';

/** One allowed prefix. */
interface Prefix {
  origin: string;
  path: string;
}

/** Decides which URLs a constrained run may read; allows everything when not constrained. */
export class UrlScope {
  readonly #prefixes: Prefix[] | undefined;

  /** `urls`: the run's URLs when constrained; undefined: any URL is in scope. */
  constructor(urls: readonly string[] | undefined) {
    this.#prefixes = urls?.map((url) => {
      // `https://site/docs/*` constrains to `/docs/`, as extract's wildcards read.
      const parsed = parseTargetUrl(url.endsWith('/*') ? url.slice(0, -1) : url);
      return { origin: parsed.origin, path: parsed.pathname };
    });
  }

  /** Whether the run is constrained at all. */
  get isConstrained(): boolean {
    return this.#prefixes !== undefined;
  }

  /** Whether `url` may be read. An unparsable URL is never in a constrained scope. */
  allows(url: string): boolean {
    if (!this.#prefixes) return true;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    return this.#prefixes.some(
      (prefix) =>
        parsed.origin === prefix.origin &&
        (parsed.pathname === prefix.path ||
          parsed.pathname.startsWith(prefix.path.endsWith('/') ? prefix.path : `${prefix.path}/`)),
    );
  }

  /** Why `url` is refused, for the model and the trace. */
  refusal(url: string): string {
    return `${url} is outside the URLs this run is constrained to (strictConstrainToURLs): ${this.describe()}. Use only pages under those.`;
  }

  /** The allowed prefixes, as a list for the model. */
  describe(): string {
    return (this.#prefixes ?? []).map((prefix) => `${prefix.origin}${prefix.path}`).join(', ');
  }
}
