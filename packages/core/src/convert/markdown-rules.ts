/**
 * The escaping rules of our markdown writer: where a character of text would start or end
 * markdown syntax, and so must be escaped (`\*`) or written as a character reference (`&#x20;`).
 *
 * They are the rules CommonMark and GFM give our writer's output to respect, in the form and
 * the order mdast-util-to-markdown with remark-gfm applies them (its base rules, then GFM
 * autolink literals, footnotes, strikethrough and tables), so that our output is byte for byte
 * the library's (the equivalence test compares both on random trees). A rule applies inside
 * some constructs (the writer's stack of what it is in: `phrasing`, `label`, `tableCell` …), to
 * its character with what may come before and after it (regular expression sources), or right
 * after a line ending and its indentation (`atBreak`).
 */

export interface EscapeRule {
  readonly character: string;
  readonly before?: string;
  readonly after?: string;
  readonly atBreak?: boolean;
  /** The rule applies when any of these is on the stack; when absent, everywhere. */
  readonly inConstruct?: readonly string[];
  /** …and none of these is. */
  readonly notInConstruct?: readonly string[];
}

/** A rule ready to match: its pattern, global, with the text before its character in group 1. */
export interface CompiledRule extends EscapeRule {
  readonly pattern: RegExp;
  /** Whether group 1 holds what precedes the character. */
  readonly hasPrefix: boolean;
  readonly code: number;
}

// Spans whose text is not inline markdown: link destinations and titles, references, autolinks.
const spans = [
  'autolink',
  'destinationLiteral',
  'destinationRaw',
  'reference',
  'titleQuote',
  'titleApostrophe',
];
const fenceInfo = [
  'codeFencedLangGraveAccent',
  'codeFencedLangTilde',
  'codeFencedMetaGraveAccent',
  'codeFencedMetaTilde',
];
const fenceLang = ['codeFencedLangGraveAccent', 'codeFencedLangTilde'];
const phrasing = ['phrasing'];
const inlineSyntax = { inConstruct: phrasing, notInConstruct: spans };
// GFM autolink literals (`www.`, `http://`, `a@b.c`) do not form inside links, images or labels.
const literalLinks = {
  inConstruct: phrasing,
  notInConstruct: ['autolink', 'link', 'image', 'label'],
};
const lineEnd = '[\\r\\n]';

const rules: EscapeRule[] = [
  // White space beside a line ending would be eaten by the line's trimming.
  { character: '\t', after: lineEnd, inConstruct: phrasing },
  { character: '\t', before: lineEnd, inConstruct: phrasing },
  { character: '\t', inConstruct: fenceLang },
  { character: '\r', inConstruct: [...fenceInfo, 'destinationLiteral', 'headingAtx'] },
  { character: '\n', inConstruct: [...fenceInfo, 'destinationLiteral', 'headingAtx'] },
  // Blank lines would end the paragraph.
  { character: '\r', before: lineEnd, inConstruct: phrasing },
  { character: '\r', after: '\\r', inConstruct: phrasing },
  { character: '\n', before: '\\n', inConstruct: phrasing },
  { character: '\n', after: lineEnd, inConstruct: phrasing },
  { character: ' ', after: lineEnd, inConstruct: phrasing },
  { character: ' ', before: lineEnd, inConstruct: phrasing },
  { character: ' ', inConstruct: fenceLang },
  // `![` starts an image.
  { character: '!', after: '\\[', ...inlineSyntax },
  { character: '"', inConstruct: ['titleQuote'] },
  // A line's `#` starts a heading; one at a heading's end would close it.
  { atBreak: true, character: '#' },
  { character: '#', inConstruct: ['headingAtx'], after: '(?:[\r\n]|$)' },
  // `&amp;` and `&#1;` are character references.
  {
    character: '&',
    after: '[#A-Za-z]',
    inConstruct: [
      ...fenceInfo,
      'destinationLiteral',
      'destinationRaw',
      'phrasing',
      'titleApostrophe',
      'titleQuote',
    ],
  },
  { character: "'", inConstruct: ['titleApostrophe'] },
  { character: '(', inConstruct: ['destinationRaw'] },
  // `](` after text makes a link of it.
  { before: '\\]', character: '(', ...inlineSyntax },
  // `1)` and `1.` at a line's start are list items.
  { atBreak: true, before: '\\d+', character: ')' },
  { character: ')', inConstruct: ['destinationRaw'] },
  // Thematic breaks, list items, emphasis.
  { atBreak: true, character: '*', after: '(?:[ \t\r\n*])' },
  { character: '*', ...inlineSyntax },
  { atBreak: true, character: '+', after: '(?:[ \t\r\n])' },
  // Thematic breaks, list items, setext underlines.
  { atBreak: true, character: '-', after: '(?:[ \t\r\n-])' },
  { atBreak: true, before: '\\d+', character: '.', after: '(?:[ \t\r\n]|$)' },
  // HTML and autolinks; and the end of a `<…>` destination.
  { atBreak: true, character: '<', after: '[!/?A-Za-z]' },
  { character: '<', after: '[!/?A-Za-z]', ...inlineSyntax },
  { character: '<', inConstruct: ['destinationLiteral'] },
  // Setext underlines, block quotes.
  { atBreak: true, character: '=' },
  { atBreak: true, character: '>' },
  { character: '>', inConstruct: ['destinationLiteral'] },
  // Definitions, links and the end of labels.
  { atBreak: true, character: '[' },
  { character: '[', ...inlineSyntax },
  { character: '[', inConstruct: ['label', 'reference'] },
  // A backslash before a line ending is a hard break.
  { character: '\\', after: lineEnd, inConstruct: phrasing },
  { character: ']', inConstruct: ['label', 'reference'] },
  { atBreak: true, character: '_' },
  { character: '_', ...inlineSyntax },
  // Code, fenced or inline; a grave accent also ends a grave accent fence's info.
  { atBreak: true, character: '`' },
  { character: '`', inConstruct: ['codeFencedLangGraveAccent', 'codeFencedMetaGraveAccent'] },
  { character: '`', ...inlineSyntax },
  { atBreak: true, character: '~' },
  // What an autolink cannot hold: percent-encoded there.
  { character: '<', inConstruct: ['autolink'] },
  { character: '>', inConstruct: ['autolink'] },
  { character: '\u007F', inConstruct: ['autolink'] },
  ...Array.from({ length: 33 }, (_, code) => ({
    character: String.fromCharCode(code),
    inConstruct: ['autolink'],
  })),
  // GFM autolink literals: an email's `@`, `www.`, `http:` and `https:`.
  { character: '@', before: '[+\\-.\\w]', after: '[\\-.\\w]', ...literalLinks },
  { character: '.', before: '[Ww]', after: '[\\-.\\w]', ...literalLinks },
  { character: ':', before: '[ps]', after: '\\/', ...literalLinks },
  // GFM footnote calls and labels.
  { character: '[', inConstruct: ['label', 'phrasing', 'reference'] },
  // GFM strikethrough.
  { character: '~', ...inlineSyntax },
  // GFM tables: a cell is one line, `|` separates cells, and a line of `|`, `:` and `-` is a
  // delimiter row.
  { character: '\r', inConstruct: ['tableCell'] },
  { character: '\n', inConstruct: ['tableCell'] },
  { atBreak: true, character: '|', after: '[\t :-]' },
  { character: '|', inConstruct: ['tableCell'] },
  { atBreak: true, character: ':', after: '-' },
  { atBreak: true, character: '-', after: '[:|-]' },
];

const regexSyntax = /[$()*+.?[\\\]^{|}]/;

function compile(rule: EscapeRule): CompiledRule {
  const prefix =
    (rule.atBreak ? '[\\r\\n][\\t ]*' : '') + (rule.before ? `(?:${rule.before})` : '');
  const character = (regexSyntax.test(rule.character) ? '\\' : '') + rule.character;
  const suffix = rule.after ? `(?:${rule.after})` : '';
  return {
    ...rule,
    pattern: new RegExp((prefix ? `(${prefix})` : '') + character + suffix, 'g'),
    hasPrefix: prefix !== '',
    code: rule.character.charCodeAt(0),
  };
}

/** Every rule, compiled once, in the order they apply. */
export const escapeRules: readonly CompiledRule[] = rules.map(compile);

/** Rules that only apply after a line ending: inline code turns such line endings into spaces. */
export const atBreakRules: readonly CompiledRule[] = escapeRules.filter((rule) => rule.atBreak);

/** Whether the rule applies with `stack` as the constructs the writer is in. */
export function isInScope(stack: readonly string[], rule: EscapeRule): boolean {
  return (
    anyOnStack(stack, rule.inConstruct, true) && !anyOnStack(stack, rule.notInConstruct, false)
  );
}

function anyOnStack(
  stack: readonly string[],
  names: readonly string[] | undefined,
  whenNone: boolean,
): boolean {
  if (!names || names.length === 0) return whenNone;
  for (const name of names) if (stack.includes(name)) return true;
  return false;
}
