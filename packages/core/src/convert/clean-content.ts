/**
 * `onlyCleanContent`: markdown meant for a language model or an index, where URLs and layout
 * leftovers are noise. Links become their text, images go, and lines that are only furniture
 * (a row of links, "Share", "Advertisement", "Read more") are dropped. Done without an LLM, so
 * it is deterministic and free.
 */
const furnitureLine =
  /^(?:[-*+]\s+)?(?:share(?: this)?(?: on \w+)?|tweet|advertisement|sponsored|read more|continue reading|skip to (?:main )?content|back to top|print|subscribe|sign up|log ?in|follow us)\.?$/i;

/** Strips links' URLs, images and furniture lines from markdown. */
export function cleanMarkdown(markdown: string): string {
  const withoutImages = markdown
    .replace(/\[!\[[^\]]*\]\([^)]*\)\]\([^)]*\)/g, '')
    .replace(/!\[[^\]]*\]\((?:[^()]|\([^)]*\))*\)/g, '');
  const withoutUrls = withoutImages.replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/g, '$1');
  return withoutUrls
    .split('\n')
    .filter((line) => !furnitureLine.test(line.trim()))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
