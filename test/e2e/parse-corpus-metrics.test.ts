/**
 * The parse corpus's measures on tiny inputs whose scores are worked out by hand, so a broken
 * measure cannot pass a broken parser.
 */
import { describe, expect, it } from 'vitest';
import {
  furnitureLeaks,
  locateBlocks,
  markdownTables,
  normaliseCell,
  readingOrder,
  tableCellScore,
  textSimilarity,
  tokenize,
} from '../parse-corpus/metrics.ts';

describe('parse corpus metrics', () => {
  it('tokenizes on words, folding case and dropping soft hyphens and punctuation', () => {
    expect(tokenize('Envi\u00ADron\u00ADmen\u00ADtal: the "Run-off", 18.5 m!')).toEqual([
      'environmental',
      'the',
      'run',
      'off',
      '18',
      '5',
      'm',
    ]);
  });

  it('scores text similarity as one minus the token edit distance over the longer length', () => {
    expect(textSimilarity('one two three four', 'one two three four')).toBe(1);
    expect(textSimilarity('one two three four', 'one two six four')).toBe(0.75);
    expect(textSimilarity('one two three four', 'one two')).toBe(0.5);
    expect(textSimilarity('one two', '')).toBe(0);
    // Markdown syntax, list numbers and link targets are not words of the text.
    expect(
      textSimilarity(
        'Title one two see the notes',
        '# Title\n\n1. one\n2. two\n\nsee [the notes](https://example.org/notes/page)',
      ),
    ).toBe(1);
  });

  it('finds blocks with a few words changed, but not blocks mostly missing', () => {
    const output = tokenize('alpha beta gamma delta epsilon zeta eta theta iota kappa');
    // 1 edit in 8 tokens is within a quarter; 3 of 4 tokens missing is not.
    expect(locateBlocks(['gamma delta epsilon zeta ETA theta iota XX'], output)).toEqual([2]);
    expect(locateBlocks(['alpha one two three'], output)).toEqual([-1]);
  });

  it('places a one-word heading at its own line, not inside an earlier paragraph using the word', () => {
    const blocks = [
      'The methods of the survey are described below in full',
      'Samples were taken every week at each of the stations',
      'Methods',
      'A probe measured the temperature and the salinity',
    ];
    expect(readingOrder(blocks, blocks.join('\n\n'))).toEqual({ accuracy: 1, found: 4, total: 4 });
  });

  it('scores reading order as the share of block pairs kept in order, missing blocks losing theirs', () => {
    const a = 'the first paragraph has these words';
    const b = 'the second paragraph follows the first';
    const c = 'a third paragraph closes the text';
    expect(readingOrder([a, b, c], [a, b, c].join('\n\n')).accuracy).toBe(1);
    // c moved to the front: (a,b) kept, (a,c) and (b,c) inverted.
    expect(readingOrder([a, b, c], [c, a, b].join('\n\n')).accuracy).toBeCloseTo(1 / 3);
    // b missing: only (a,c) is kept.
    expect(readingOrder([a, b, c], [a, c].join('\n\n'))).toEqual({
      accuracy: 1 / 3,
      found: 2,
      total: 3,
    });
    // Two columns read line by line across: the interleaved lines match neither paragraph.
    const left = 'one two three four five six seven eight nine ten eleven twelve';
    const right = 'red orange yellow green blue indigo violet black white grey pink brown';
    const interleaved =
      'one two three red orange yellow four five six green blue indigo seven eight nine violet black white ten eleven twelve grey pink brown';
    expect(readingOrder([left, right], interleaved)).toEqual({ accuracy: 0, found: 0, total: 2 });
  });

  it('reads GFM tables out of markdown, with escaped pipes and empty cells', () => {
    const markdown = [
      'Text with a | pipe is no table.',
      '',
      '| Name | Note |',
      '| - | :-: |',
      '| a \\| b | |',
      '| `c` | **d** |',
      '',
      'Between.',
      '',
      'x | y',
      '--- | ---',
      '1 | 2',
    ].join('\n');
    expect(markdownTables(markdown)).toEqual([
      [
        ['Name', 'Note'],
        ['a | b', ''],
        ['`c`', '**d**'],
      ],
      [['x', 'y']],
    ]);
  });

  it('normalises cells: words, and numbers in one form', () => {
    expect(normaliseCell('**1,250.0**')).toBe('1250');
    expect(normaliseCell('42.0')).toBe(normaliseCell('42'));
    expect(normaliseCell('Average  length (m)')).toBe('average length m');
    expect(normaliseCell('')).toBe('');
  });

  it('scores table cells by row, column and text, penalising repeated merged text and shifted cells', () => {
    const truth = [
      ['Section', 'Landings', ''],
      ['Quay', '12', ''],
      ['Basin', '', '5'],
    ];
    expect(tableCellScore([truth], [truth]).f1).toBe(1);
    // A blank header row added by a converter shifts nothing: empty rows are left out.
    expect(tableCellScore([truth], [[['', '', ''], ...truth]]).f1).toBe(1);
    // The merged header repeated into the cell it covers: 7 cells out, 6 of them right.
    const repeated = tableCellScore(
      [truth],
      [[['Section', 'Landings', 'Landings'], truth[1]!, truth[2]!]],
    );
    expect(repeated).toMatchObject({ precision: 6 / 7, recall: 1, matchedCells: 6 });
    // The empty cell dropped: "5" moves left and no longer matches.
    const shifted = tableCellScore([truth], [[truth[0]!, truth[1]!, ['Basin', '5', '']]]);
    expect(shifted).toMatchObject({ precision: 5 / 6, recall: 5 / 6, matchedCells: 5 });
    // Tables are paired by shared cells, whatever order they come in.
    const other = [['x', 'y']];
    expect(tableCellScore([truth, other], [other, truth]).f1).toBe(1);
    expect(tableCellScore([truth], []).f1).toBe(0);
    expect(tableCellScore([], [other]).f1).toBe(0);
    expect(tableCellScore([], []).f1).toBe(1);
  });

  it('counts running headers and footers, # standing for page numbers', () => {
    const markdown =
      'Annual Report — 2024\n\nBody text.\n\nHarbour Trust · Page 1 of 3\n\nMore.\n\nHarbour Trust · Page 2 of 3';
    expect(furnitureLeaks(['Harbour Trust · Page # of #'], markdown)).toBe(2);
    expect(furnitureLeaks(['Annual Report — 2024'], markdown)).toBe(1);
    // The same words inside a longer sentence's tokens still count, but a near miss does not.
    expect(furnitureLeaks(['Page # of #'], 'see page two of the report')).toBe(0);
    expect(furnitureLeaks(['Report 2024'], 'the report 20245 is late')).toBe(0);
  });
});
