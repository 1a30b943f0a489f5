/**
 * What a page's own scripts may not do to the server through the browser: everything
 * Chromium tells Playwright arrives on the thread that answers requests, so a page that opens
 * windows without end, raises dialogs in a loop or grows its DOM to gigabytes would cost that
 * thread, not only its renderer. A scrape context opens no second window, shows no dialog, and
 * its DOM is read back only up to the body limit.
 */
import type { BrowserContext, Page, Request } from 'playwright-core';
import { ContentTooLargeError, FetchError } from '../errors.ts';

/**
 * Dialogs answered in the page itself: Playwright dismisses each one it is told of, but an
 * `alert()` loop is then a protocol round trip per dialog, thousands a second, for as long as the
 * page lives. `print()` would open the print preview. Source text: core does not compile against
 * the DOM library.
 */
const noDialogs = `(() => {
  const quiet = { alert: () => undefined, confirm: () => false, prompt: () => null, print: () => undefined };
  for (const [name, value] of Object.entries(quiet))
    Object.defineProperty(window, name, { value, writable: false, configurable: false });
})();`;

/**
 * Keeps a scrape to its one page: dialogs answered in the page, and any other window (a
 * `window.open` loop, a `target=_blank` click) closed as it opens, before it can load and open
 * more. The scrape's result is its own page's either way.
 */
export async function containPage(context: BrowserContext, page: Page): Promise<void> {
  await context.addInitScript(noDialogs);
  context.on('page', (opened) => {
    if (opened !== page) opened.close().catch(() => undefined);
  });
}

/**
 * Navigations of a scrape's page (its first load, refreshes, script redirects, links its actions
 * follow) past which the next one is refused: a `<meta http-equiv=refresh content=0>` to itself
 * is a navigation every few milliseconds, each a dozen protocol messages for the thread that
 * answers requests, which held `/health` for 10 s on a loaded machine.
 */
export const maxNavigations = 20;

/** Counts a page's main-frame navigations; the route handler asks it before letting one go. */
export interface NavigationBudget {
  /** False for a main-frame navigation past the budget (the caller aborts it). */
  allows(request: Request): boolean;
  /** The scrape's error once a navigation was refused. */
  exceeded(): FetchError | undefined;
}

export function navigationBudget(page: Page, url: URL): NavigationBudget {
  let navigations = 0;
  return {
    allows(request) {
      if (!request.isNavigationRequest() || request.frame() !== page.mainFrame()) return true;
      navigations++;
      return navigations <= maxNavigations;
    },
    exceeded() {
      if (navigations <= maxNavigations) return undefined;
      return new FetchError(
        `${url.href} navigated more than ${maxNavigations} times (a refresh or script redirect loop): scrape the page it ends on, or without the browser`,
        { retryable: false },
      );
    },
  };
}

/**
 * The page's DOM as HTML, as `page.content()` gives it, unless it is longer than `maxChars` bytes:
 * the length is checked in the renderer, so a page that grew to gigabytes is refused there and
 * never crosses the protocol. @throws CONTENT_TOO_LARGE past `maxChars`; FETCH_FAILED when the
 * page navigated away while it was read (a refresh or script redirect loop)
 */
export async function readPageHtml(page: Page, url: URL, maxChars: number): Promise<string> {
  let read: string | number;
  try {
    read = await page.evaluate(`(() => {
      let html = document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '';
      if (document.documentElement) html += document.documentElement.outerHTML;
      return html.length > ${maxChars} ? html.length : html;
    })()`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/Invalid string length|Array buffer allocation failed/i.test(message)) read = Infinity;
    else if (/Execution context was destroyed|navigat/i.test(message)) {
      throw new FetchError(
        `${url.href} kept navigating (a refresh or script redirect loop) and never held still long enough to be read`,
        { cause: error, retryable: false },
      );
    } else throw error;
  }
  // The renderer counts UTF-16 units; the limit is in bytes of the UTF-8 the page becomes.
  if (typeof read === 'string') {
    const bytes = Buffer.byteLength(read, 'utf8');
    if (bytes <= maxChars) return read;
    read = bytes;
  }
  throw new ContentTooLargeError(
    `The page ${url.href} grew past the ${maxChars.toLocaleString('en-US')}-byte limit in the browser${Number.isFinite(read) ? ` (at least ${read.toLocaleString('en-US')} bytes)` : ''}. Raise maxBodyBytes in the engine config to read it`,
    { details: { setting: 'maxBodyBytes', limitBytes: maxChars } },
  );
}
