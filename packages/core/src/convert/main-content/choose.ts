/**
 * Which candidate wins: the removal design's root (markup conventions) or the scored candidate
 * (where the prose is). Each is right where the other fails: the root keeps every post of a
 * thread and every item of a listing, the scored candidate drops the comment threads, related
 * lists and sidebars that a wide root (`#content`, `<body>`) carries along.
 */
import { detach, idAndClass, isTag, walkElements, type Element, type ParentNode } from '../dom.ts';
import type { ScoredCandidate } from './scored.ts';
import type { TextStats } from './stats.ts';
import { widenOverSkippedProse } from './good-prose.ts';
import { contains } from './tree.ts';

/** Share of the root's prose the scored candidate must hold to replace it. */
const narrowerShare = 0.6;

/** Text outside links: what a reader reads, rather than clicks. */
function prose(stats: Map<Element, TextStats>, element: ParentNode): number {
  const s = stats.get(element as Element);
  return s ? s.text - s.linkText : 0;
}

/**
 * Returns the content root: `root`, or the scored candidate when it sits inside the root and
 * holds most of its prose (the root was too wide), or stands outside it with more prose (the
 * root was a decoy). The scored candidate's non-member siblings are removed when it wins. A
 * narrower candidate that skips the good prose between the title (`heading`) and itself gives
 * way to the nearest ancestor holding that prose.
 */
export function chooseCandidate(
  body: ParentNode,
  root: ParentNode,
  scored: ScoredCandidate | undefined,
  stats: Map<Element, TextStats>,
  heading: Element | undefined,
): ParentNode {
  if (!scored || !contains(body, scored.top)) return root;
  const members = scored.members.filter((member) => contains(body, member));
  const candidateProse = members.reduce((total, member) => total + prose(stats, member), 0);
  const rootProse = prose(stats, root);
  const inside = contains(root, scored.top) && root !== scored.top;
  const wins = inside
    ? candidateProse >= rootProse * narrowerShare
    : !contains(scored.top, root) && candidateProse > rootProse * 1.5;
  if (!wins || dropsReviews(root, members, stats)) return root;
  // The paragraph classifier's second opinion: a narrower candidate must not skip the text that
  // opens the root (fourth pass).
  const widened = inside ? widenOverSkippedProse(root, scored.top, members, heading) : undefined;
  if (widened) return widened;
  if (members.length <= 1) return scored.top;
  const parent = scored.top.parent;
  if (!parent || !isTag(parent)) return scored.top;
  const kept = new Set<Element>(members);
  for (const child of [...parent.children]) if (isTag(child) && !kept.has(child)) detach(child);
  return parent;
}

/**
 * Product reviews are content (unlike an article's comments), and a shop's description is often
 * the page's densest prose: a narrower candidate must not cut the reviews off.
 */
function dropsReviews(
  root: ParentNode,
  members: readonly Element[],
  stats: Map<Element, TextStats>,
): boolean {
  // A set: a long page may have thousands of members, and this runs for every element.
  const kept = new Set(members);
  let dropped = false;
  walkElements(root, (element) => {
    if (dropped || kept.has(element)) return false;
    if (idAndClass(element).includes('review') && prose(stats, element) >= 200) dropped = true;
    return !dropped;
  });
  return dropped;
}
