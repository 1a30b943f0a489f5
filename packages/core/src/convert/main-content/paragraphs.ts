/**
 * A paragraph classifier in the manner of jusText: each text block of the chosen content is
 * judged by its length and link density, then short and middling blocks are judged again by their
 * neighbours. Prose is a run of long, unlinked paragraphs; what trails it (share bars, "Kommentare
 * schreiben", author lines, "zurück", a legal notice, the next story's title) is short or linked,
 * and stands next to nothing but more of the same. Names and tags say nothing here, which is why
 * it catches what the furniture rules miss on sites they have never seen.
 */
import { detach, isTag, type ParentNode } from '../dom.ts';
import { splitIntoBlocks, type TextBlock } from './blocks.ts';
import { isLabelledOffSiteList } from './labelled-lists.ts';

type Verdict = 'good' | 'neargood' | 'short' | 'bad';

// jusText's thresholds (its defaults: length_low 70, length_high 200, max_link_density 0.2).
// Without stopword lists for every language, length alone separates a paragraph from a label.
const shortLength = 70;
const goodLength = 200;
const maxLinkDensity = 0.2;
// How far (in characters of the blocks between) a heading may stand from the text it titles.
const headingReach = 200;

function classify(block: TextBlock): Verdict {
  if (block.linkDensity > maxLinkDensity || block.hasCopyright) return 'bad';
  // Length says nothing about code: a one-line command is as much content as a paragraph.
  if (block.isCode) return block.length >= goodLength ? 'good' : 'neargood';
  if (block.length < shortLength) return 'short';
  return block.length >= goodLength ? 'good' : 'neargood';
}

/** The nearest verdict before (`step` -1) or after (+1) `index`, skipping what `skip` holds. */
function neighbour(
  verdicts: readonly Verdict[],
  index: number,
  step: 1 | -1,
  skip: ReadonlySet<Verdict>,
): Verdict {
  for (let at = index + step; at >= 0 && at < verdicts.length; at += step) {
    const verdict = verdicts[at]!;
    if (!skip.has(verdict)) return verdict;
  }
  // The edges of the content count as boilerplate, as in jusText.
  return 'bad';
}

const skipShort = new Set<Verdict>(['short']);
const skipShortAndNear = new Set<Verdict>(['short', 'neargood']);

/** Context-free verdicts revised by context: every block ends good or bad. */
export function classifyBlocks(blocks: readonly TextBlock[]): boolean[] {
  const initial = blocks.map(classify);
  // A short heading shortly before good text titles it: as good as a middling paragraph.
  blocks.forEach((block, index) => {
    if (!block.isHeading || initial[index] !== 'short') return;
    let distance = 0;
    for (let at = index + 1; at < blocks.length && distance <= headingReach; at++) {
      if (initial[at] === 'good') {
        initial[index] = 'neargood';
        return;
      }
      distance += blocks[at]!.length;
    }
  });

  // Short blocks take the verdict of the text around them.
  const revised = [...initial];
  initial.forEach((verdict, index) => {
    if (verdict !== 'short') return;
    const before = neighbour(initial, index, -1, skipShortAndNear);
    const after = neighbour(initial, index, 1, skipShortAndNear);
    if (before === 'good' && after === 'good') revised[index] = 'good';
    else if (before === 'bad' && after === 'bad') revised[index] = 'bad';
    else if (
      (before === 'bad' && neighbour(initial, index, -1, skipShort) === 'neargood') ||
      (after === 'bad' && neighbour(initial, index, 1, skipShort) === 'neargood')
    )
      revised[index] = 'good';
    else revised[index] = 'bad';
  });
  // A short sentence right after kept text closes it ("See you tomorrow.", a thank-you, an
  // update note): jusText's edge rule would drop it with the footer lines that follow, which
  // are labels and links rather than sentences.
  for (let index = 1; index < blocks.length; index++) {
    const isClosingLine =
      initial[index] === 'short' && blocks[index]!.endsSentence && revised[index - 1] === 'good';
    if (isClosingLine) revised[index] = 'good';
  }
  // Middling paragraphs are good unless boilerplate stands on both sides.
  const final = [...revised];
  revised.forEach((verdict, index) => {
    if (verdict !== 'neargood') return;
    const before = neighbour(revised, index, -1, skipShortAndNear);
    const after = neighbour(revised, index, 1, skipShortAndNear);
    final[index] = before === 'bad' && after === 'bad' ? 'bad' : 'good';
  });
  return final.map((verdict) => verdict === 'good');
}

// The trimmed tail may be at most this share of the content's text: more than that is a second
// body of content (a listing after its introduction, a product's specification), not its trailer.
const maxTrimmedShare = 0.35;

/**
 * Removes the boilerplate that trails the content's prose: the blocks after the last one the
 * classifier keeps, or after the last labelled list of links to other sites (`site`: the page's,
 * from `siteOf`), which is the author's selection however link-dense. Does nothing to content
 * without a long paragraph (listings, products, forms), which the classifier was not made for.
 */
export function trimTrailingBoilerplate(root: ParentNode, site?: string): void {
  const blocks = splitIntoBlocks(root);
  if (!blocks.some((block) => classify(block) === 'good')) return;
  const kept = classifyBlocks(blocks);
  let last = kept.lastIndexOf(true);
  for (let index = blocks.length - 1; index > last; index--) {
    const [node, ...rest] = blocks[index]!.nodes;
    if (rest.length === 0 && node && isTag(node) && isLabelledOffSiteList(node, site)) {
      last = index;
      break;
    }
  }
  const total = blocks.reduce((sum, block) => sum + block.length, 0);
  const tail = blocks.slice(last + 1);
  const trimmed = tail.reduce((sum, block) => sum + block.length, 0);
  if (tail.length === 0 || trimmed > total * maxTrimmedShare) return;
  for (const block of tail) for (const node of block.nodes) detach(node);
}
