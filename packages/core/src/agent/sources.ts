/**
 * Facts with their source URL: the fields of the answer's schema that name where a
 * fact came from (`source`, `sourceUrl`, `sourceURL`, `source_url`, `sources`, `sourceUrls`),
 * which the model is told to fill, and the check that each URL in them is a page the run read
 * or a search result it saw, so that an answer cannot cite a page nobody looked at.
 */

const sourceField = /^sources?(_?urls?)?$/i;

/** Whether a property name holds a source URL. */
export const isSourceField = (name: string): boolean => sourceField.test(name);

/** JSON paths (`items[].source`) of the schema's source fields. */
export function sourceFieldsOf(schema: unknown, path = ''): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as {
    properties?: Record<string, unknown>;
    items?: unknown;
    anyOf?: unknown[];
    oneOf?: unknown[];
    allOf?: unknown[];
  };
  const found: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const childPath = path ? `${path}.${name}` : name;
    if (isSourceField(name)) found.push(childPath);
    else found.push(...sourceFieldsOf(child, childPath));
  }
  if (node.items) found.push(...sourceFieldsOf(node.items, `${path}[]`));
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    found.push(...sourceFieldsOf(branch, path));
  return [...new Set(found)];
}

/** A URL without its fragment and trailing slash, for comparing citations with pages read. */
export function citationKey(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.hash = '';
    return parsed.href.replace(/\/$/, '');
  } catch {
    return url;
  }
}

/** The URLs cited in source fields of `answer` that are not in `citable` (citation keys). */
export function uncitedSources(answer: unknown, citable: ReadonlySet<string>): string[] {
  const bad = new Set<string>();
  const visit = (value: unknown, isSource: boolean) => {
    if (typeof value === 'string') {
      if (isSource && !citable.has(citationKey(value))) bad.add(value);
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, isSource);
      return;
    }
    if (typeof value === 'object' && value !== null)
      for (const [key, child] of Object.entries(value)) visit(child, isSourceField(key));
  };
  visit(answer, false);
  return [...bad];
}
