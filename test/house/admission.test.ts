/**
 * Paid work passes admission: no route plugin (any file under packages/http/src/server/routes)
 * reads or writes the credits ledger, the token book or the counters itself, nor reserves or
 * charges past a ticket (it asks `admit` for a ticket, pays its model through it and settles
 * it), so a new route cannot check credits one way and charge them another, nor race past a
 * team's limit.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot, sourceFiles } from './source-files.ts';

const routes = join(repositoryRoot, 'packages/http/src/server/routes');

/** What reaches the ledger, the token book or the counters around admission. */
const bypasses = [
  /\bledger\b/,
  /\bCreditLedger\b/,
  /\bcounters\b/i,
  /\btokens\.(?:reserve|settle|meter|refusal)\b/,
  /\.debit\(/,
  /\.refund\(/,
  /\.(?:un)?reserve\(/,
  /\bnew (?:Admission|TokenUsageBook|MemoryCounters|RedisCounters|PostgresCounters)\b/,
];

/** A file's code without its comments (a comment may name the ledger). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('admission', () => {
  it('is the only way a route plugin reaches credits, tokens or counters', () => {
    const files = sourceFiles().filter((path) => path.startsWith(`${routes}/`));
    expect(files.length).toBeGreaterThan(10);
    const offenders = files.flatMap((path) => {
      const text = code(readFileSync(path, 'utf8'));
      return bypasses
        .filter((pattern) => pattern.test(text))
        .map((pattern) => `${relative(routes, path)}: ${pattern}`);
    });
    expect(offenders).toEqual([]);
  });
});
