/**
 * Tree helpers of main-content extraction: containment, removal passes, the main heading.
 */
import { Element as DomElement, Text as DomText } from 'domhandler';
import {
  detach,
  headingTags,
  isTag,
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

/** An element a removal pass took out, and where it stood. */
export interface Removal {
  element: Element;
  parent: ParentNode;
}

/**
 * Walks the tree and removes what `judge` condemns; a kept or removed block is not entered.
 * `context` goes to each call of `judge`, which can then be a function of its module rather than
 * a closure per page (see `walkElements`). Returns what it removed.
 */
export function removeWhere<C = undefined>(
  root: ParentNode,
  judge: (element: Element, context: C) => Verdict,
  context?: C,
): Removal[] {
  const doomed: Element[] = [];
  collectDoomed(root, judge, context as C, doomed);
  const removals: Removal[] = [];
  // Detached after the walk, so the walk never sees a tree that changes under it.
  for (const element of doomed) {
    if (element.parent) removals.push({ element, parent: element.parent });
    detach(element);
  }
  return removals;
}

function collectDoomed<C>(
  parent: ParentNode,
  judge: (element: Element, context: C) => Verdict,
  context: C,
  doomed: Element[],
): void {
  for (const child of parent.children) {
    if (!isTag(child)) continue;
    const verdict = judge(child, context);
    if (verdict === 'remove') doomed.push(child);
    else if (verdict === 'descend') collectDoomed(child, judge, context, doomed);
  }
}

/** Cards of a listing carry a heading per item; a menu has none, a link list one title at most. */
export function countHeadings(element: Element): number {
  const counted = { count: 0 };
  walkElements(element, countHeading, counted);
  return counted.count;
}

function countHeading(element: Element, counted: { count: number }): boolean {
  if (headingTags.has(element.name)) counted.count++;
  return counted.count < 2;
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
