// Tokenisation used for scoring. Extractors emit markdown while the corpus stores plain text, so
// markdown syntax is removed first; what remains is compared as a bag of lowercase words, which makes
// the score insensitive to formatting choices (heading levels, bullet styles, table layout).

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, body: string) => {
    if (body[0] === '#') {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : Number(body.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? match;
  });
}

// Link text may itself contain escaped or one level of nested brackets (`[\[1\]](#cite-1)`,
// `[[1]](#cite-1)`), and URLs may contain one level of parentheses (`/wiki/Foo_(bar)`).
const LINK_TEXT = String.raw`((?:\\.|[^\[\]\\]|\[[^\]]*\])*)`;
const LINK_DEST = String.raw`(?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?`;
const IMAGE = new RegExp(String.raw`!\[${LINK_TEXT}\](?:\(${LINK_DEST}\)|\[[^\]\n]*\])`, 'g');
const LINK = new RegExp(String.raw`\[${LINK_TEXT}\](?:\(${LINK_DEST}\)|\[[^\]\n]*\])`, 'g');

/** Removes markdown syntax, keeping the text a reader would see (link text, code, cell text). */
export function stripMarkdown(markdown: string): string {
  const lines: string[] = [];
  for (const raw of markdown.split(/\r?\n/)) {
    // Fences, setext underlines, thematic breaks, table separator rows and link reference
    // definitions carry no text.
    if (/^\s*(```|~~~)/.test(raw)) continue;
    if (/^\s*(=+|-+|\*{3,}|_{3,}|(-\s*){3,}|(\*\s*){3,})\s*$/.test(raw)) continue;
    if (/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(raw)) continue;
    if (/^\s{0,3}\[[^\]]+\]:\s+\S+/.test(raw)) continue;
    let line = raw
      .replace(/^\s{0,3}#{1,6}(\s+|$)/, '')
      .replace(/\s#+\s*$/, '')
      .replace(/^(\s*>)+\s?/, '')
      .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, '');
    // Images go first so that a linked image `[![alt](src)](href)` leaves an empty link behind.
    // Repeated because link text can contain another link after escapes are resolved.
    for (let i = 0; i < 3; i++) {
      const next = line.replace(IMAGE, '').replace(LINK, '$1');
      if (next === line) break;
      line = next;
    }
    // Raw HTML tags (remark and turndown pass some through); autolinks like <https://…> stay
    // because the tag pattern needs whitespace, `/` or `>` right after the name.
    line = line.replace(/<\/?[a-zA-Z][a-zA-Z0-9-]*(?:\s[^>]*)?\/?>/g, ' ');
    line = line.replace(
      /^<([a-z][a-z0-9+.-]*:[^>\s]*)>$|<([a-z][a-z0-9+.-]*:[^>\s]*)>/gi,
      ' $1$2 ',
    );
    lines.push(decodeEntities(line));
  }
  return lines.join('\n');
}

/** Lowercase words: maximal runs of Unicode letters and digits. */
export function tokenize(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0);
}

export function markdownTokens(markdown: string): string[] {
  return tokenize(stripMarkdown(markdown));
}
