/**
 * Tree helpers of main-content extraction: containment, removal passes, the main heading.
 */
import { Element as DomElement, Text as DomText } from 'domhandler';
import {
  detach,
  headingTags,
  walkElements,
  type AnyNode,
  type Element,
  type ParentNode,
} from '../dom.ts';

export function contains(ancestor: ParentNode, node: AnyNode): boolean {
  for (let current: ParentNode | null = node.parent; current; current = current.parent) {
    if (current === ancestor) return true;
  }
  return node === ancestor;
}

/** What a removal pass decides for one element. */
export type Verdict = 'remove' | 'keep' | 'descend';

/** Walks the tree and removes what `judge` condemns; a kept or removed block is not entered. */
export function removeWhere(root: ParentNode, judge: (element: Element) => Verdict): void {
  const doomed: Element[] = [];
  walkElements(root, (element) => {
    const verdict = judge(element);
    if (verdict === 'remove') doomed.push(element);
    return verdict === 'descend';
  });
  // Detached after the walk, so the walk never sees a tree that changes under it.
  for (const element of doomed) detach(element);
}

/** Cards of a listing carry a heading per item; a menu has none, a link list one title at most. */
export function countHeadings(element: Element): number {
  let count = 0;
  walkElements(element, (child) => {
    if (headingTags.has(child.name)) count++;
    return count < 2;
  });
  return count;
}

/** A new container holding the blocks (moved: the heading, a lead) followed by the root. */
export function withLeading(root: ParentNode, blocks: readonly Element[]): ParentNode {
  for (const block of blocks) detach(block);
  const container = new DomElement('div', {}, []);
  const children: AnyNode[] = [...blocks.flatMap((block) => [block, new DomText('\n')]), root];
  for (const child of children) {
    if (child === root && root.parent) detach(root);
    child.parent = container;
  }
  container.children = children;
  children.forEach((child, index) => {
    child.prev = children[index - 1] ?? null;
    child.next = children[index + 1] ?? null;
  });
  return container;
}
