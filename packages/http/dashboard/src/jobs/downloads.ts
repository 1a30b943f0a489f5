/**
 * A crawl's documents as files to keep: JSON lines (one document a line), or a zip of markdown
 * files named after their URLs (`host/path/page.md`), zipped by fflate in the browser.
 */
import { strToU8, zipSync } from 'fflate';
import type { ScrapedDocument } from '../types.ts';

/** Offers `bytes` as a download named `name`. */
function save(name: string, bytes: BlobPart, type: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([bytes], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

/** Every document, one JSON object a line. */
export function downloadJsonLines(name: string, documents: ScrapedDocument[]): void {
  const lines = documents.map((scraped) => JSON.stringify(scraped)).join('\n');
  save(`${name}.jsonl`, `${lines}\n`, 'application/x-ndjson');
}

/** `https://a.example/docs/x.html?p=1` → `a.example/docs/x-p-1.md`: a safe relative path. */
export function markdownPath(url: string | undefined, index: number): string {
  let parsed: URL | undefined;
  try {
    parsed = url ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed) return `document-${index + 1}.md`;
  const safe = (part: string) => part.replace(/[^\w.-]+/g, '-').replace(/^\.+/, '_') || 'index';
  const segments = parsed.pathname.split('/').filter(Boolean).map(safe);
  const page = (segments.pop() ?? 'index').replace(/\.(?:html?|php|aspx?)$/i, '');
  const last = `${page}${parsed.search ? `-${safe(parsed.search.slice(1))}` : ''}`;
  return [safe(parsed.host), ...segments, `${last}.md`].join('/');
}

/** Every document's markdown as a file of a zip. */
export function downloadMarkdownZip(name: string, documents: ScrapedDocument[]): void {
  const files: Record<string, Uint8Array> = {};
  documents.forEach((scraped, index) => {
    let path = markdownPath(scraped.metadata?.sourceURL ?? scraped.metadata?.url, index);
    // Two URLs that name the same file keep both.
    if (path in files) path = path.replace(/\.md$/, `-${index + 1}.md`);
    files[path] = strToU8(scraped.markdown ?? '');
  });
  save(`${name}.zip`, zipSync(files), 'application/zip');
}
