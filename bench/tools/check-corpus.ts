// Sanity checks for the hand-written corpus: every line of expected.txt must appear, as a contiguous
// run of tokens, in the visible text of source.html (catches typos and text that drifted between the
// two files), meta.json must be complete, and sizes must stay within the budget.
//
//   npm run env -- node --conditions=development bench/tools/check-corpus.ts [slug ...]

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ElementType, parseDocument } from 'htmlparser2';
import type { ChildNode } from 'domhandler';
import { tokenize } from '../lib/tokens.ts';

const corpusDir = join(import.meta.dirname, '..', 'corpus');
const INVISIBLE = new Set(['script', 'style', 'template', 'noscript', 'svg', 'head', 'title']);
// Inline elements join their text without a break ('236<span>kcal</span>' reads as one word), so
// only block-level elements, line breaks and table cells separate words.
const INLINE = new Set(
  (
    'a abbr b bdi bdo cite code data del dfn em i ins kbd local-time mark q s samp small span ' +
    'strong sub sup time tt u var g-emoji label font'
  ).split(' '),
);

function visibleText(nodes: readonly ChildNode[], out: string[]): void {
  for (const node of nodes) {
    if (node.type === ElementType.Text) out.push(node.data);
    else if (node.type === ElementType.Tag && !INVISIBLE.has(node.name)) {
      const gap = INLINE.has(node.name) ? '' : ' ';
      out.push(gap);
      visibleText(node.children, out);
      out.push(gap);
    } else if (node.type === ElementType.CDATA) visibleText(node.children, out);
  }
}

function occursIn(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return true;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

let problems = 0;
let total = 0;
const args = process.argv.slice(2);
const slugs = args.length > 0 ? args : readdirSync(corpusDir).sort();
for (const slug of slugs) {
  const dir = join(corpusDir, slug);
  const html = readFileSync(join(dir, 'source.html'), 'utf8');
  const expected = readFileSync(join(dir, 'expected.txt'), 'utf8');
  const meta = JSON.parse(readFileSync(join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
  const size = statSync(join(dir, 'source.html')).size;
  total += size;
  const issues: string[] = [];
  for (const key of ['type', 'url', 'notes'])
    if (typeof meta[key] !== 'string' || meta[key] === '') issues.push(`meta.json lacks ${key}`);
  if (typeof meta['url'] === 'string' && !meta['url'].startsWith('https://'))
    issues.push('url not https');
  if (size >= 1024 * 1024) issues.push(`source.html is ${size} bytes`);
  if (html.includes('<!--bulk:')) issues.push('unexpanded bulk marker');
  const parts: string[] = [];
  visibleText(parseDocument(html).children, parts);
  const page = tokenize(parts.join(''));
  const lines = expected.split('\n').filter((l) => l.trim() !== '');
  for (const line of lines)
    if (!occursIn(page, tokenize(line))) issues.push(`not in page: ${line.slice(0, 90)}`);
  const expTokens = lines.flatMap((l) => tokenize(l)).length;
  console.log(
    `${slug.padEnd(30)} ${String(meta['type']).padEnd(10)} ${(size / 1024).toFixed(0).padStart(4)} KB  expected ${String(expTokens).padStart(5)} / visible ${String(page.length).padStart(5)} tokens`,
  );
  for (const i of issues) console.log(`   ! ${i}`);
  problems += issues.length;
}
console.log(`${slugs.length} pages, ${(total / 1024 / 1024).toFixed(2)} MB, ${problems} problems`);
process.exitCode = problems > 0 ? 1 : 0;
