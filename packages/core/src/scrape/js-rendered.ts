/**
 * The automatic HTTP → browser decision: an HTML answer that is only a shell for JavaScript to
 * fill in (a single-page app's empty root, "enable JavaScript" in `noscript`) is rendered in the
 * browser instead. Looks at the text only, with regular expressions built once: it runs on every
 * HTML answer, so it must cost far less than the fetch (bench/browser.ts measures it).
 */

const invisible =
  /<(script|style|noscript|template|svg)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;
const tags = /<[^>]+>/g;
const entities = /&(?:[a-z]+|#\d+|#x[\da-f]+);/gi;
const bodyStart = /<body\b[^>]*>/i;
/** Mount points of the common front-end frameworks, left empty in the served HTML. */
const emptyAppRoot =
  /<(div|main|section|body)\b[^>]*\bid\s*=\s*["']?(root|app|__next|__nuxt|___gatsby|svelte|react-root|app-root|application|main-app|ember-app)["']?[^>]*>\s*<\/\1\s*>|<(app-root|ng-app)\b[^>]*>\s*<\/\3\s*>/i;
const noscriptHint =
  /<noscript\b[^>]*>[\s\S]{0,400}?\b(enable|requires?|need|turn on|activate)\b[\s\S]{0,80}?javascript/i;
const scriptTag = /<script\b/i;

/** Visible text below which a page counts as a shell (a cookie banner or footer can remain). */
const shellTextChars = 300;

/** Invisible elements, comments and tags, in document order: what separates visible text. */
const notText =
  /<(script|style|noscript|template|svg)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->|<[^>]+>/gi;
const nonSpace = /[^\s]/g;

/**
 * Whether the visible text holds at least `chars` characters other than white space, read from
 * the start and stopping as soon as it does: a page with content says so in its first kilobytes,
 * and only a shell is read to its end (the whole-document pass cost every page).
 * Only a sufficient test: fewer characters leave the decision to the full count below.
 */
function hasVisibleText(body: string, chars: number): boolean {
  let count = 0;
  let from = 0;
  notText.lastIndex = 0;
  for (;;) {
    const match = notText.exec(body);
    const end = match ? match.index : body.length;
    if (end > from) {
      let segment = body.slice(from, end);
      // An entity is a space in the full count: it must not count as several characters here.
      if (segment.includes('&')) segment = segment.replace(entities, ' ');
      count += segment.match(nonSpace)?.length ?? 0;
      if (count >= chars) return true;
    }
    if (!match) return false;
    from = notText.lastIndex;
  }
}

/**
 * Whether the page has a script tag anywhere. The plain search finds the usual lower-case tag at
 * memory speed; the case-blind regex scanned the whole body on every page whose scripts are all
 * in the head, 1 % of the crawl thread's time in a profiled crawl, and now runs only
 * when the plain search finds nothing.
 */
function hasScript(html: string): boolean {
  return html.includes('<script') || scriptTag.test(html);
}

/** Whether this HTML looks like it only shows its content after JavaScript runs. */
export function looksJsRendered(html: string): boolean {
  const start = html.search(bodyStart);
  const body = start >= 0 ? html.slice(start) : html;
  if (!hasScript(html)) return false;
  // Every character other than white space is in the collapsed text below: enough of them
  // decides at once, without the passes over the whole document.
  if (hasVisibleText(body, shellTextChars)) return false;
  const text = body
    .replace(invisible, ' ')
    .replace(tags, ' ')
    .replace(entities, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length >= shellTextChars) return false;
  return emptyAppRoot.test(body) || noscriptHint.test(body) || text.length < 20;
}
