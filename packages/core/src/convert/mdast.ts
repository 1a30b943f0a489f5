/**
 * The cleaned domhandler tree straight to mdast, for remark-stringify. This replaces the
 * rehype-remark stage (hast-util-to-mdast): that stage deep-clones the whole tree with a
 * JavaScript structuredClone, runs a separate whitespace-minifying pass and merges text nodes
 * with array splices, which together made it 70% of the pipeline's time and quadratic on very
 * wide pages (bench/README.md, "Throughput"). Here whitespace is folded while walking, once.
 */
import type {
  BlockContent,
  DefinitionContent,
  List,
  ListItem,
  Paragraph,
  PhrasingContent,
  Root,
} from 'mdast';
import { isTag, isText, type AnyNode, type Element, type ParentNode } from './dom.ts';
import { codeBlockOf } from './mdast-code.ts';
import { type CellReaders, tableOf } from './mdast-table.ts';
import { collapse, normaliseInline, textOf } from './mdast-whitespace.ts';

type Flow = BlockContent | DefinitionContent;

// Elements that flow as text inside a paragraph; everything else starts a block.
const phrasingTags = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'big',
  'br',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
  'nobr',
  'output',
  'meter',
  'progress',
  'picture',
]);
// Elements with nothing to say in markdown.
const silentTags = new Set([
  'iframe',
  'frame',
  'frameset',
  'video',
  'audio',
  'area',
  'rp',
  'col',
  'colgroup',
  'caption',
]);

const cellReaders: CellReaders = { flow: flowOf, phrasing: phrasingOfChildren };

/** Converts a cleaned tree to an mdast root. */
export function treeToMdast(root: ParentNode): Root {
  return { type: 'root', children: flowOf(root.children) };
}

/** Flow content of a list of DOM nodes: blocks as they come, runs of inline content as paragraphs. */
function flowOf(nodes: readonly AnyNode[]): Flow[] {
  const flow: Flow[] = [];
  let inline: PhrasingContent[] = [];
  const flush = () => {
    if (inline.length > 0) flow.push(...toParagraphs(inline));
    inline = [];
  };
  for (const node of nodes) {
    if (isText(node)) {
      inline.push({ type: 'text', value: node.data });
    } else if (isTag(node)) {
      if (isPhrasing(node)) {
        inline.push(...phrasingOf(node));
      } else {
        flush();
        flow.push(...blockOf(node));
      }
    }
  }
  flush();
  return flow;
}

function isPhrasing(element: Element): boolean {
  if (!phrasingTags.has(element.name)) return false;
  // A link or span wrapping block markup (a card) is a block in effect.
  return !hasBlockDescendant(element);
}

function hasBlockDescendant(element: Element): boolean {
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (!phrasingTags.has(child.name) && !silentTags.has(child.name)) return true;
    if (hasBlockDescendant(child)) return true;
  }
  return false;
}

function blockOf(element: Element): Flow[] {
  switch (element.name) {
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6': {
      const children = normaliseInline(phrasingOfChildren(element));
      return children.length > 0
        ? [{ type: 'heading', depth: Number(element.name[1]) as 1, children }]
        : [];
    }
    case 'p':
      return flowOf(element.children);
    case 'pre':
      return [codeBlockOf(element)];
    case 'blockquote': {
      const children = flowOf(element.children);
      return children.length > 0 ? [{ type: 'blockquote', children }] : [];
    }
    case 'ul':
    case 'ol':
    case 'menu':
      return listOf(element);
    case 'dl':
      return definitionListOf(element);
    case 'hr':
      return [{ type: 'thematicBreak' }];
    case 'table':
      return tableOf(element, cellReaders);
    case 'a':
      return linkedBlocks(element);
    default:
      if (silentTags.has(element.name)) return [];
      return flowOf(element.children);
  }
}

function phrasingOf(element: Element): PhrasingContent[] {
  switch (element.name) {
    case 'br':
      return [{ type: 'break' }];
    case 'img': {
      const url = element.attribs['src'];
      if (!url) return [];
      const title = element.attribs['title'];
      return [
        {
          type: 'image',
          url,
          alt: collapse(element.attribs['alt'] ?? ''),
          ...(title ? { title } : {}),
        },
      ];
    }
    case 'a': {
      const children = phrasingOfChildren(element);
      const url = element.attribs['href'];
      if (!url) return children;
      const title = element.attribs['title'];
      return [{ type: 'link', url, children, ...(title ? { title } : {}) }];
    }
    case 'strong':
    case 'b':
      return [{ type: 'strong', children: phrasingOfChildren(element) }];
    case 'em':
    case 'i':
    case 'cite':
    case 'dfn':
      return [{ type: 'emphasis', children: phrasingOfChildren(element) }];
    case 'del':
    case 's':
    case 'strike':
      return [{ type: 'delete', children: phrasingOfChildren(element) }];
    case 'code':
    case 'kbd':
    case 'samp':
    case 'tt':
    case 'var': {
      const value = collapse(textOf(element));
      return value.trim() ? [{ type: 'inlineCode', value }] : [];
    }
    case 'q':
      return [
        { type: 'text', value: '“' },
        ...phrasingOfChildren(element),
        { type: 'text', value: '”' },
      ];
    default:
      return silentTags.has(element.name) ? [] : phrasingOfChildren(element);
  }
}

function phrasingOfChildren(element: Element): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  for (const child of element.children) {
    if (isText(child)) out.push({ type: 'text', value: child.data });
    else if (isTag(child)) {
      if (phrasingTags.has(child.name) || silentTags.has(child.name))
        out.push(...phrasingOf(child));
      else {
        // Block markup inside inline context (a <div> in a <span>, blocks in a table cell):
        // keep its text, separated by a space.
        out.push({ type: 'text', value: ' ' }, ...phrasingOfChildren(child), {
          type: 'text',
          value: ' ',
        });
      }
    }
  }
  return out;
}

/** A link wrapping blocks (a card): its blocks, each block's inline content linked. */
function linkedBlocks(element: Element): Flow[] {
  const url = element.attribs['href'];
  const flow = flowOf(element.children);
  if (!url) return flow;
  for (const block of flow) {
    if ((block.type === 'paragraph' || block.type === 'heading') && !containsLink(block.children)) {
      block.children = [{ type: 'link', url, children: block.children }];
    }
  }
  return flow;
}

function containsLink(nodes: readonly PhrasingContent[]): boolean {
  return nodes.some(
    (node) => node.type === 'link' || ('children' in node && containsLink(node.children)),
  );
}

/**
 * Inline content as paragraphs. Two or more line breaks in a row (`<br><br>`, how forums and old
 * CMSs write paragraphs) split it into paragraphs instead of lines of backslashes.
 */
function toParagraphs(inline: PhrasingContent[]): Paragraph[] {
  const children = normaliseInline(inline);
  const paragraphs: Paragraph[] = [];
  let current: PhrasingContent[] = [];
  for (let index = 0; index < children.length; index++) {
    const node = children[index]!;
    if (node.type === 'break' && children[index + 1]?.type === 'break') {
      while (children[index + 1]?.type === 'break') index++;
      if (current.length > 0)
        paragraphs.push({ type: 'paragraph', children: trimLineStart(current) });
      current = [];
      continue;
    }
    current.push(node);
  }
  if (current.length > 0) paragraphs.push({ type: 'paragraph', children: trimLineStart(current) });
  return paragraphs;
}

/** A paragraph split at breaks may start with the space that followed them. */
function trimLineStart(nodes: PhrasingContent[]): PhrasingContent[] {
  const first = nodes[0];
  if (first?.type === 'text') {
    first.value = first.value.replace(/^ +/, '');
    if (first.value === '') return nodes.slice(1);
  }
  return nodes;
}

/**
 * Folds white space as a browser renders it: runs become one space, none at the start or end of
 * the block or after a line break, and formatting that holds only white space disappears.
 */
function listOf(element: Element): Flow[] {
  const ordered = element.name === 'ol';
  const start = ordered ? Number.parseInt(element.attribs['start'] ?? '1', 10) : undefined;
  const items: ListItem[] = [];
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name !== 'li') {
      // Stray markup between items (a nested list without its <li>): keep it as an item.
      const flow = child.name === 'ul' || child.name === 'ol' ? listOf(child) : flowOf([child]);
      if (flow.length > 0) items.push({ type: 'listItem', spread: false, children: flow });
      continue;
    }
    const flow = flowOf(child.children);
    if (flow.length > 0) items.push({ type: 'listItem', spread: false, children: flow });
  }
  if (items.length === 0) return [];
  const list: List = { type: 'list', ordered, spread: false, children: items };
  if (ordered) list.start = Number.isFinite(start) ? start : 1;
  return [list];
}

function definitionListOf(element: Element): Flow[] {
  // Markdown has no definition lists: terms become bold paragraphs, definitions paragraphs.
  const flow: Flow[] = [];
  for (const child of element.children) {
    if (!isTag(child)) continue;
    if (child.name === 'dt') {
      const children = normaliseInline(phrasingOfChildren(child));
      if (children.length > 0)
        flow.push({ type: 'paragraph', children: [{ type: 'strong', children }] });
    } else {
      flow.push(...flowOf(child.children));
    }
  }
  return flow;
}
