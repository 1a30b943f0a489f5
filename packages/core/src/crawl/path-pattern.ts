/**
 * The user's URL patterns (`includePaths`, `excludePaths`) on a linear-time engine. JavaScript's
 * own RegExp backtracks, so one pattern such as `(a+)+$` against one long link froze the whole
 * server. RE2 semantics (through re2js, pure JavaScript) match in time linear
 * in the subject, whatever the pattern; the price is that backreferences and lookaround, which
 * need backtracking, cannot be expressed and are refused when the options are read.
 */
import { RE2JS, RE2JSException } from 're2js';
import { ValidationError } from '../errors.ts';

/** A compiled user pattern: `test` answers whether it matches anywhere in the subject. */
export interface PathPattern {
  test(subject: string): boolean;
}

// Constructs JavaScript accepts and RE2 cannot run, named so that the 400 says what to change.
// Checked before compiling because RE2's own messages for them are misleading ("invalid named
// capture" for a lookbehind, "invalid escape" for a backreference).
const unsupportedConstructs: [RegExp, string][] = [
  [/(?:^|[^\\])(?:\\\\)*\(\?<[=!]/, 'lookbehind (?<= or (?<!'],
  [/(?:^|[^\\])(?:\\\\)*\(\?[=!]/, 'lookahead (?= or (?!'],
  [/(?:^|[^\\])(?:\\\\)*\\[1-9]/, 'backreference \\1…\\9'],
  [/(?:^|[^\\])(?:\\\\)*\\k</, 'named backreference \\k<name>'],
];

/**
 * Why `pattern` cannot run on the linear-time engine, or undefined when it can. The answer names
 * the construct (lookaround, backreference) or RE2's syntax error.
 */
export function pathPatternProblem(pattern: string): string | undefined {
  for (const [construct, name] of unsupportedConstructs) {
    if (construct.test(pattern)) {
      return `'${pattern}' uses a ${name}, which the linear-time pattern engine (RE2 syntax) cannot run; rewrite it without one`;
    }
  }
  try {
    RE2JS.compile(pattern);
    return undefined;
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return `'${pattern}' is not a valid RE2 regular expression: ${error.message}`;
  }
}

/**
 * Compiles a pattern accepted by {@link pathPatternProblem}.
 * @throws BAD_REQUEST for one it refuses: a crawl stored before patterns ran on RE2 and resumed
 */
export function compilePathPattern(pattern: string): PathPattern {
  const problem = pathPatternProblem(pattern);
  if (problem) throw new ValidationError(problem);
  const compiled = RE2JS.compile(pattern);
  return { test: (subject) => compiled.test(subject) };
}
