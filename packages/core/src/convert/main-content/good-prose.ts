/**
 * Where the good prose is: the paragraph classifier (paragraphs.ts) run over a subtree, each
 * kept block's characters summed up its ancestors. A second opinion on a candidate that reads no
 * names and no scores: how many of the paragraphs a reader would read it holds, and where the
 * ones it leaves out stand.
 */
import { isTag, type Element, type ParentNode } from '../dom.ts';
import { splitIntoBlocks } from './blocks.ts';
import { classifyBlocks } from './paragraphs.ts';
import { contains } from './tree.ts';

/** The classifier's verdicts over a subtree. */
export interface GoodProse {
  /** Characters of good prose under each element (the subtree's root included); absent: none. */
  within: Map<ParentNode, number>;
  /** Each block, in reading order: the element holding it, and its good characters (0: bad). */
  blocks: { holder: ParentNode; good: number }[];
}

/** Runs the classifier over `root`, whose edges count as boilerplate, as in jusText. */
export function findGoodProse(root: ParentNode): GoodProse {
  const split = splitIntoBlocks(root);
  const kept = classifyBlocks(split);
  const within = new Map<ParentNode, number>();
  const blocks: GoodProse['blocks'] = [];
  split.forEach((block, index) => {
    const first = block.nodes[0];
    // A block is one element, which holds it, or a run of inline nodes, which their parent holds.
    const holder = block.nodes.length === 1 && first && isTag(first) ? first : first?.parent;
    if (!holder) return;
    const good = kept[index] ? block.length : 0;
    blocks.push({ holder, good });
    if (good === 0) return;
    for (let node: ParentNode | null = holder; node; node = node === root ? null : node.parent)
      within.set(node, (within.get(node) ?? 0) + good);
  });
  return { within, blocks };
}

// A narrower candidate is refused when the root's good prose it skips, between the title and
// its first block, is at least this many characters and this share of the good prose it holds:
// an article's first half, a holiday home's description before its FAQ, the page's own story
// before the next ones an endless scroll appended. What follows the candidate (comments,
// related stories) is left out of the count: that is what narrowing is for.
const minSkipped = 400;
const skippedShare = 0.3;
// The widened candidate must hold the candidate's good prose and most of the skipped prose.
const skippedKept = 0.8;

/**
 * The content root to use instead of `members` (the scored candidate, inside `root`) when they
 * skip the good prose that opens the root's text: the nearest ancestor of `top` holding it, or
 * `root`. Undefined when the candidate skips nothing that matters.
 */
export function widenOverSkippedProse(
  root: ParentNode,
  top: Element,
  members: readonly Element[],
  heading: Element | undefined,
): ParentNode | undefined {
  const prose = findGoodProse(root);
  const held = members.reduce((sum, member) => sum + (prose.within.get(member) ?? 0), 0);
  const kept = new Set<ParentNode>(members);
  const isKept = (node: ParentNode): boolean => {
    for (let at: ParentNode | null = node; at && at !== root; at = at.parent)
      if (kept.has(at)) return true;
    return false;
  };
  // Counted from the title on when the root holds it before the candidate (what stands before a
  // title is its site's), else from the root's start.
  const title = heading && contains(root, heading) && !isKept(heading) ? heading : undefined;
  let counting = title === undefined;
  let skipped = 0;
  for (const block of prose.blocks) {
    if (!counting) {
      counting = contains(title!, block.holder) || contains(block.holder, title!);
      continue;
    }
    if (isKept(block.holder)) break;
    skipped += block.good;
  }
  if (skipped < Math.max(minSkipped, held * skippedShare)) return undefined;
  const wanted = held + skipped * skippedKept;
  for (let node: ParentNode | null = top.parent; node && node !== root; node = node.parent)
    if ((prose.within.get(node) ?? 0) >= wanted) return node;
  return root;
}

/**
 * The element that holds the page's good prose: from the block with the most good characters,
 * up to the first ancestor holding at least half of all of it, then on up while the next one
 * adds good prose (a title, a lead) and little else (`textOf` under half again as much). Undefined
 * when the page has none.
 */
export function findGoodProseHolder(
  prose: GoodProse,
  root: ParentNode,
  textOf: (node: ParentNode) => number,
): ParentNode | undefined {
  const total = prose.within.get(root) ?? 0;
  let best: GoodProse['blocks'][number] | undefined;
  for (const block of prose.blocks) if (block.good > (best?.good ?? 0)) best = block;
  if (!best) return undefined;
  let node: ParentNode = best.holder;
  const goodIn = (at: ParentNode): number => prose.within.get(at) ?? 0;
  while (node !== root && node.parent && goodIn(node) < total * 0.5) node = node.parent;
  for (let parent = node.parent; node !== root && parent; parent = node.parent) {
    if (goodIn(parent) <= goodIn(node) || textOf(parent) > textOf(node) * 1.5) break;
    node = parent;
  }
  return node;
}
