/**
 * Cleaned tree → GFM markdown: our converter builds the mdast (mdast.ts), and unified's
 * remark-stringify with remark-gfm (tables, strikethrough) writes it.
 */
import type { Nodes as MdastNodes, Parents as MdastParents, Root as MdastRoot } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import type { ParentNode } from './dom.ts';
import { treeToMdast } from './mdast.ts';

// Built once: plugin attachment and option merging are the costly part of a unified processor.
const processor = unified()
  // Unpadded tables: column alignment padding costs tokens downstream and reads no better.
  .use(remarkGfm, { tablePipeAlign: false })
  .use(remarkStringify, {
    bullet: '-',
    fences: true,
    rule: '-',
    emphasis: '_',
    strong: '*',
    listItemIndent: 'one',
    incrementListMarker: true,
    resourceLink: false,
  })
  .freeze();

/** Converts a cleaned tree to GFM markdown. */
export function treeToMarkdown(root: ParentNode): string {
  const mdast = treeToMdast(root);
  tidyMdast(mdast);
  return tidyMarkdown(processor.stringify(mdast));
}

/**
 * Removes what reads as noise in markdown: links without text (or with only a same-page target,
 * unwrapped to their text) and images without a source.
 */
function tidyMdast(root: MdastRoot): void {
  const tidy = (parent: MdastParents): void => {
    const next: MdastNodes[] = [];
    for (const child of parent.children as MdastNodes[]) {
      if ('children' in child) tidy(child);
      if (child.type === 'link') {
        if (child.children.length === 0) continue;
        if (!child.url || child.url.startsWith('#')) {
          next.push(...(child.children as MdastNodes[]));
          continue;
        }
      } else if (child.type === 'image' && !child.url) {
        continue;
      } else if (
        (child.type === 'emphasis' || child.type === 'strong' || child.type === 'delete') &&
        child.children.length === 0
      ) {
        continue;
      }
      next.push(child);
    }
    (parent as { children: MdastNodes[] }).children = next;
  };
  tidy(root);
}

function tidyMarkdown(markdown: string): string {
  return markdown
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
