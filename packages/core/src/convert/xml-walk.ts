/**
 * Walking XML elements without a schema: elements and attributes are matched by local name, so
 * a part that binds the usual namespaces to unusual prefixes (`ns0:sp` for `p:sp`) reads the
 * same. Office packages (OOXML, ODF, EPUB) are read with these.
 */
import { isTag, type Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';

/** An element's name without its namespace prefix. */
export const localName = (element: Element): string =>
  element.name.slice(element.name.indexOf(':') + 1);

/** The child elements of `parent` (named `name`, when given), in document order. */
export function childElements(parent: Element | undefined, name?: string): Element[] {
  if (!parent) return [];
  return parent.children.filter(
    (child): child is Element => isTag(child) && (name === undefined || localName(child) === name),
  );
}

/** The first element reached by following child names from `parent`. */
export function childAt(parent: Element | undefined, ...path: string[]): Element | undefined {
  let at = parent;
  for (const name of path) at = childElements(at, name)[0];
  return at;
}

/** Every descendant element named `name`, in document order. */
export function descendants(parent: Element | undefined, name: string): Element[] {
  const found: Element[] = [];
  const visit = (element: Element) => {
    for (const child of childElements(element)) {
      if (localName(child) === name) found.push(child);
      visit(child);
    }
  };
  if (parent) visit(parent);
  return found;
}

/**
 * An attribute by local name. With `prefixed`, only a namespaced attribute matches (`r:id`
 * rather than a plain `id` on the same element).
 */
export function attribute(
  element: Element | undefined,
  name: string,
  { prefixed = false } = {},
): string | undefined {
  if (!element) return undefined;
  if (!prefixed && name in element.attribs) return element.attribs[name];
  const key = Object.keys(element.attribs).find((key) => key.endsWith(`:${name}`));
  return key === undefined ? undefined : element.attribs[key];
}

/** The root element of an XML text. */
export function parseXml(xml: string): Element | undefined {
  const document = parseDocument(xml, { xmlMode: true });
  return document.children.find(isTag);
}
