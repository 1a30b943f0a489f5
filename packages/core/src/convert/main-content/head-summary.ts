/**
 * What a page says about itself in its head, for a page whose body shows nothing: a forum thread
 * or a shop page its scripts fill in (Discourse's JavaScript view, an empty `<section id="main">`)
 * still names itself in `<title>` and summarises itself in its meta description. A reader
 * gets that rather than an empty answer.
 */
import { Element as DomElement, Text as DomText } from 'domhandler';
import { collapsedText, isTag, type Element, type ParentNode } from '../dom.ts';

const descriptionNames = new Set(['description', 'og:description', 'twitter:description']);

/**
 * A container holding the page's title and description from the `<head>` next to `body`, or
 * undefined when the head offers neither.
 */
export function summaryFromHead(body: ParentNode): ParentNode | undefined {
  const head = body.parent?.children.find(
    (child): child is Element => isTag(child) && child.name === 'head',
  );
  if (!head) return undefined;
  let title = '';
  let description = '';
  for (const child of head.children) {
    if (!isTag(child)) continue;
    if (child.name === 'title' && !title) title = collapsedText(child);
    const name = child.attribs['name'] ?? child.attribs['property'];
    if (child.name === 'meta' && !description && name && descriptionNames.has(name))
      description = (child.attribs['content'] ?? '').replace(/\s+/g, ' ').trim();
  }
  const blocks = [
    ...(title ? [block('h1', title)] : []),
    ...(description ? [block('p', description)] : []),
  ];
  if (blocks.length === 0) return undefined;
  const container = new DomElement('div', {}, blocks);
  for (const [index, child] of blocks.entries()) {
    child.parent = container;
    child.prev = blocks[index - 1] ?? null;
    child.next = blocks[index + 1] ?? null;
  }
  return container;
}

function block(name: string, text: string): Element {
  const element = new DomElement(name, {}, [new DomText(text)]);
  element.children[0]!.parent = element;
  return element;
}
