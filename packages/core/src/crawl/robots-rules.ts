/**
 * robots.txt parsing and rule matching (RFC 9309), built for files written by an adversary.
 *
 * Not robots-parser any more: its matcher costs pattern × path per rule and URL, so a file of
 * 20,000 rules like `/*a*a*…*a*1z` against 1,500-character paths held the main thread for
 * minutes. Here a file is compiled once into rules indexed by their literal prefix, and each rule
 * matches by searching its literal pieces in order (a `*` match needs no backtracking: finding
 * each piece at its leftmost place after the last one is enough), so one rule costs about one
 * pass over the path and most rules of a real file are never looked at.
 */

/** One Allow or Disallow line, compiled. */
interface CompiledRule {
  allow: boolean;
  /** The pattern's length, for the longest-match precedence. */
  length: number;
}

/**
 * A node of the tree over the rules' pieces (the literal text between `*`s): reaching it means
 * the pieces on its way were found in order, each at its leftmost place after the one before.
 * Leftmost placement needs no backtracking (it leaves the most room for what follows), so rules
 * sharing their first pieces share the search for them.
 */
interface PieceNode {
  /** The next piece, searched from where this node's pieces ended. */
  children: Map<string, PieceNode> | undefined;
  /** Rules whose pieces all end here (the path may go on). */
  ends: CompiledRule[] | undefined;
  /** Rules of one piece ending in `$`: the path must end where the piece does. */
  exact: CompiledRule[] | undefined;
  /** Rules ending in `$` whose last piece, named by the key, must end the path. */
  tails: Map<string, CompiledRule[]> | undefined;
  /** The longest rule in this subtree: a subtree no longer than the best match is skipped. */
  longest: number;
  /** The children's pieces by length, built on first use when there are many (see findAll). */
  pieceSets?: PieceSets;
}

/** Pieces grouped by length, to look each place of the path up once per length. */
interface PieceSets {
  byLength: Map<number, Set<string>>;
  /** The pieces' first characters: a place starting with none of them is passed at once. */
  firstChars: Set<string>;
  /** The sum of the distinct lengths: what looking up one place costs. */
  cost: number;
}

/** Above this many children a node's pieces are found in one pass rather than one by one. */
const manyChildren = 8;

/** The tree over the rules' first pieces, by character: they are anchored at the path's start. */
interface PrefixNode {
  children: Map<string, PrefixNode>;
  /** The rules whose first piece ends here. */
  rest: PieceNode | undefined;
}

/** The parsed file: every group's rules and delay, and the Sitemap lines. */
export interface ParsedRobots {
  /** The rules and Crawl-delay for `agent` (its own groups, else `*`'s, else none). */
  groupFor(agent: string): { matcher: RobotsMatcher; crawlDelaySeconds: number | undefined };
  sitemaps: string[];
}

/** Answers whether a path (with its query) may be fetched. */
export interface RobotsMatcher {
  isAllowed(pathAndQuery: string): boolean;
}

interface RawGroup {
  agents: string[];
  lines: { allow: boolean; pattern: string }[];
  crawlDelay: number | undefined;
}

/** Parses the text of a robots.txt (the caller has already cut it to its size limit). */
export function parseRobotsText(text: string): ParsedRobots {
  const groups: RawGroup[] = [];
  const sitemaps: string[] = [];
  let current: RawGroup | undefined;
  // Consecutive User-agent lines share one group; the first rule line closes the list.
  let collectingAgents = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = hash === -1 ? rawLine : rawLine.slice(0, hash);
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === 'user-agent') {
      if (!collectingAgents || !current) {
        current = { agents: [], lines: [], crawlDelay: undefined };
        groups.push(current);
      }
      collectingAgents = true;
      if (value) current.agents.push(agentName(value));
      continue;
    }
    if (key === 'sitemap') {
      if (value) sitemaps.push(value);
      continue;
    }
    collectingAgents = false;
    // Rules before any User-agent line belong to no group (RFC 9309 §2.1).
    if (!current) continue;
    if (key === 'allow' || key === 'disallow') {
      // An empty Disallow allows everything; an empty Allow says nothing.
      if (value) current.lines.push({ allow: key === 'allow', pattern: normalisePath(value) });
    } else if (key === 'crawl-delay') {
      const seconds = Number(value);
      if (Number.isFinite(seconds) && seconds >= 0) current.crawlDelay = seconds;
    }
  }
  const compiled = new Map<string, { matcher: RobotsMatcher; crawlDelaySeconds?: number }>();
  return {
    sitemaps,
    groupFor(agent) {
      const name = agentName(agent);
      const own = groups.filter((group) => group.agents.includes(name));
      const chosen = own.length > 0 ? own : groups.filter((group) => group.agents.includes('*'));
      const key = own.length > 0 ? name : '*';
      let entry = compiled.get(key);
      if (!entry) {
        // RFC 9309 §2.2.1: several groups for one agent are combined into one.
        const delay = chosen.find((group) => group.crawlDelay !== undefined)?.crawlDelay;
        entry = {
          matcher: compileRules(chosen.flatMap((group) => group.lines)),
          ...(delay !== undefined ? { crawlDelaySeconds: delay } : {}),
        };
        compiled.set(key, entry);
      }
      return { matcher: entry.matcher, crawlDelaySeconds: entry.crawlDelaySeconds };
    },
  };
}

/** A product token as groups are keyed: lower case, without a version. */
function agentName(agent: string): string {
  const slash = agent.indexOf('/');
  return (slash === -1 ? agent : agent.slice(0, slash)).trim().toLowerCase();
}

/**
 * Percent-encodes what a URL would encode and upper-cases escapes, so a pattern compares with a
 * path as the URL class writes it.
 */
function normalisePath(path: string): string {
  // The common case, characters encodeURI leaves alone and no escapes, skips the work.
  if (/^[\w\-.~!$&'()*+,;=:@/?#[\]]*$/.test(path)) return path;
  let encoded: string;
  try {
    encoded = encodeURI(path).replace(/%25/g, '%');
  } catch {
    // A lone surrogate cannot be encoded; the pattern is kept as written.
    encoded = path;
  }
  return upperEscapes(encoded);
}

function upperEscapes(path: string): string {
  return path.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

/**
 * How much searching one URL may cost, in characters scanned. A real file needs a few thousand;
 * a file built so that every rule almost matches a long path is cut off here, and the URL counts
 * as disallowed: the site asked not to be crawled in a way too costly to read exactly.
 */
export const robotsScanBudget = 4_000_000;

// Maps and lists are made when first needed: a file of 10,000 rules has 10,000 leaves.
const newPieceNode = (): PieceNode => ({
  children: undefined,
  ends: undefined,
  exact: undefined,
  tails: undefined,
  longest: 0,
});

function compileRules(lines: readonly { allow: boolean; pattern: string }[]): RobotsMatcher {
  const root: PrefixNode = { children: new Map(), rest: undefined };
  for (const { allow, pattern } of lines) {
    const anchored = pattern.endsWith('$');
    const pieces = (anchored ? pattern.slice(0, -1) : pattern).split('*');
    const rule: CompiledRule = { allow, length: pattern.length };
    let prefix = root;
    const first = pieces[0] ?? '';
    // By UTF-16 unit, as the path is walked.
    for (let i = 0; i < first.length; i++) {
      const char = first[i]!;
      let next = prefix.children.get(char);
      if (!next) {
        next = { children: new Map(), rest: undefined };
        prefix.children.set(char, next);
      }
      prefix = next;
    }
    let node = (prefix.rest ??= newPieceNode());
    node.longest = Math.max(node.longest, rule.length);
    const inner = anchored && pieces.length > 1 ? pieces.length - 1 : pieces.length;
    for (let i = 1; i < inner; i++) {
      const piece = pieces[i]!;
      // An empty piece (`**`) is found where the search stands.
      if (piece === '') continue;
      node.children ??= new Map();
      let next = node.children.get(piece);
      if (!next) {
        next = newPieceNode();
        node.children.set(piece, next);
      }
      node = next;
      node.longest = Math.max(node.longest, rule.length);
    }
    if (anchored && pieces.length === 1) {
      (node.exact ??= []).push(rule);
    } else if (anchored) {
      const tail = pieces[pieces.length - 1]!;
      node.tails ??= new Map();
      const tails = node.tails.get(tail) ?? [];
      tails.push(rule);
      node.tails.set(tail, tails);
    } else {
      (node.ends ??= []).push(rule);
    }
  }
  return {
    isAllowed(pathAndQuery) {
      const path = upperEscapes(pathAndQuery);
      const search: Search = { path, best: undefined, budget: robotsScanBudget };
      // Walk the path down the prefix tree: only rules whose first piece starts the path can
      // match, and the walk is at most one step per character of the path.
      let prefix: PrefixNode | undefined = root;
      for (let at = 0; prefix; at++) {
        if (prefix.rest && !visit(prefix.rest, at, search)) return false;
        const char = path[at];
        prefix = char === undefined ? undefined : prefix.children.get(char);
      }
      return !search.best || search.best.allow;
    },
  };
}

/** One URL's search: the path, the best rule so far, and the scanning left. */
interface Search {
  path: string;
  best: CompiledRule | undefined;
  budget: number;
}

/** Whether `rule` takes precedence over `best`: longer, or as long and an Allow. */
function beats(rule: CompiledRule, best: CompiledRule | undefined): boolean {
  return !best || rule.length > best.length || (rule.length === best.length && rule.allow);
}

/**
 * Records the rules of `node`'s subtree that match, its pieces having ended at `at`. Answers
 * false when the search ran out of budget.
 */
function visit(node: PieceNode, at: number, search: Search): boolean {
  const { path } = search;
  if (search.best && node.longest < search.best.length) return true;
  for (const rule of node.ends ?? []) if (beats(rule, search.best)) search.best = rule;
  if (path.length === at) {
    for (const rule of node.exact ?? []) if (beats(rule, search.best)) search.best = rule;
  }
  for (const [tail, rules] of node.tails ?? []) {
    if (path.length - tail.length < at || !path.endsWith(tail)) continue;
    for (const rule of rules) if (beats(rule, search.best)) search.best = rule;
  }
  if (!node.children) return true;
  if (node.children.size > manyChildren) {
    const ends = findAll((node.pieceSets ??= pieceSetsOf(node.children.keys())), at, search);
    if (!ends) return false;
    for (const [piece, end] of ends) {
      const child = node.children.get(piece)!;
      if (search.best && child.longest < search.best.length) continue;
      if (!visit(child, end, search)) return false;
    }
    return true;
  }
  for (const [piece, child] of node.children) {
    if (search.best && child.longest < search.best.length) continue;
    search.budget -= path.length - at;
    if (search.budget < 0) return false;
    const found = path.indexOf(piece, at);
    if (found !== -1 && !visit(child, found + piece.length, search)) return false;
  }
  return true;
}

function pieceSetsOf(pieces: Iterable<string>): PieceSets {
  const byLength = new Map<number, Set<string>>();
  const firstChars = new Set<string>();
  for (const piece of pieces) {
    firstChars.add(piece[0]!);
    let set = byLength.get(piece.length);
    if (!set) byLength.set(piece.length, (set = new Set()));
    set.add(piece);
  }
  let cost = 0;
  for (const length of byLength.keys()) cost += length;
  return { byLength, firstChars, cost };
}

/**
 * Where each of the pieces ends at its leftmost occurrence in the path from `at`, in one pass:
 * each place is looked up once per distinct piece length. Undefined past the budget.
 */
function findAll(sets: PieceSets, at: number, search: Search): Map<string, number> | undefined {
  const { path } = search;
  const ends = new Map<string, number>();
  for (let start = at; start < path.length; start++) {
    if (!sets.firstChars.has(path[start]!)) continue;
    search.budget -= sets.cost;
    if (search.budget < 0) return undefined;
    for (const [length, set] of sets.byLength) {
      if (start + length > path.length) continue;
      const piece = path.slice(start, start + length);
      if (set.has(piece) && !ends.has(piece)) ends.set(piece, start + length);
    }
  }
  return ends;
}
