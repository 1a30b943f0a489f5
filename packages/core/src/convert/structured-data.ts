/**
 * The schema.org data a page publishes about itself (product and menu read it before
 * any model): JSON-LD blocks, microdata and RDFa, as flat lists of typed nodes.
 *
 * Parsing is htmlmetaparser's (a well-kept htmlparser2 handler that reads all three syntaxes into
 * JSON-LD-shaped objects); this file only flattens its output (`@graph`, nested nodes) and
 * normalises the differences between the syntaxes: microdata and RDFa give every value as an
 * array and full type URLs, JSON-LD gives single values and short names.
 */
import { Handler } from 'htmlmetaparser';
import { Parser } from 'htmlparser2';

/** Where a node came from. */
export type StructuredSource = 'json-ld' | 'microdata' | 'rdfa';

/** A schema.org node with its types as short names (`Product`, `Offer`). */
export interface SchemaNode {
  types: string[];
  source: StructuredSource;
  /** The node's properties as the page wrote them (values may be arrays or nested nodes). */
  data: Record<string, unknown>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `https://schema.org/Product` and `schema:Product` → `Product`. */
const shortType = (type: string) => type.replace(/^.*[/#:]/, '');

/** The short types of a node. */
export function typesOf(node: Record<string, unknown>): string[] {
  const raw = node['@type'];
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((type): type is string => typeof type === 'string').map(shortType);
}

/** The first value of a property (microdata and RDFa give arrays), as is. */
export function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/** Every value of a property, as an array. */
export function all(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** A property's text: a string, a number, or a node's `name` / `@value` / `@id`. */
export function text(value: unknown): string | undefined {
  const one = first(value);
  if (typeof one === 'string') return one.trim() || undefined;
  if (typeof one === 'number') return String(one);
  if (isRecord(one)) return text(one['name'] ?? one['@value'] ?? one['@id']);
  return undefined;
}

/**
 * What a JSON-LD block may be and still be read: the page's site writes it, and a block nested
 * 100,000 deep or listing a million offers held the thread for seconds and took gigabytes as
 * objects. Real blocks are a few KB, a few levels deep; a bigger one is skipped whole.
 */
export const jsonLdLimits = { maxChars: 1024 * 1024, maxDepth: 64 };
/** How many typed nodes are collected from one page at most. */
const maxSchemaNodes = 10_000;

/** `html` with the content of every JSON-LD block past {@link jsonLdLimits} taken out. */
function withoutOversizedJsonLd(html: string): string {
  const opening = /<script\b/gi;
  const closing = /<\/script/gi;
  const parts: string[] = [];
  let copied = 0;
  for (let found = opening.exec(html); found; found = opening.exec(html)) {
    const tagEnd = html.indexOf('>', found.index);
    if (tagEnd === -1) break;
    closing.lastIndex = tagEnd;
    const end = closing.exec(html)?.index ?? html.length;
    opening.lastIndex = end;
    if (!/application\/ld\+json/i.test(html.slice(found.index, tagEnd))) continue;
    if (
      end - tagEnd - 1 <= jsonLdLimits.maxChars &&
      depthOf(html, tagEnd + 1, end) <= jsonLdLimits.maxDepth
    )
      continue;
    parts.push(html.slice(copied, tagEnd + 1));
    copied = end;
  }
  if (copied === 0) return html;
  parts.push(html.slice(copied));
  return parts.join('');
}

/** The deepest nesting of `[` and `{` in `text` between `from` and `to`, strings skipped. */
function depthOf(text: string, from: number, to: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = from; i < to; i++) {
    const char = text.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x7d || char === 0x5d) depth--;
  }
  return deepest;
}

/** Every typed node of the page, nested ones included, in document order. */
export function readSchemaNodes(html: string, url: string): SchemaNode[] {
  let result: Record<string, unknown> = {};
  const handler = new Handler(
    (error, parsed) => {
      if (!error) result = parsed as unknown as Record<string, unknown>;
    },
    { url },
  );
  // The handler is synchronous under htmlparser2: the callback has run when end() returns.
  const parser = new Parser(handler, { decodeEntities: true });
  parser.write(withoutOversizedJsonLd(html));
  parser.end();
  const nodes: SchemaNode[] = [];
  const visit = (value: unknown, source: StructuredSource, depth: number) => {
    if (depth > 12 || nodes.length >= maxSchemaNodes) return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item, source, depth + 1);
      return;
    }
    if (!isRecord(value)) return;
    const types = typesOf(value);
    if (types.length > 0) nodes.push({ types, source, data: value });
    for (const [key, child] of Object.entries(value))
      if (key !== '@context') visit(child, source, depth + 1);
  };
  visit(result['jsonld'], 'json-ld', 0);
  visit(result['microdata'], 'microdata', 0);
  visit(result['rdfa'], 'rdfa', 0);
  return nodes;
}

/** The nodes of one of `types`, JSON-LD first (the most deliberate of the three syntaxes). */
export function nodesOfType(nodes: readonly SchemaNode[], types: readonly string[]): SchemaNode[] {
  return nodes.filter((node) => node.types.some((type) => types.includes(type)));
}
