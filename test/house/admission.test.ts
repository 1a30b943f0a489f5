/**
 * Paid work passes admission: no route plugin reads or writes the credits ledger, the token book
 * or the counters itself (it asks `admit` for a ticket and settles it), so a new route cannot
 * check credits one way and charge them another, nor race past a team's limit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './source-files.ts';

const routes = join(repositoryRoot, 'packages/http/src/server/routes');

/** What reaches the ledger, the token book or the counters around admission. */
const bypasses = [
  /\bledger\b/,
  /\bCreditLedger\b/,
  /\bcounters\b/i,
  /\btokens\.(?:reserve|settle|meter|refusal)\b/,
  /\.debit\(/,
  /\.refund\(/,
];

/** A file's code without its comments (a comment may name the ledger). */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('admission', () => {
  it('is the only way a route plugin reaches credits, tokens or counters', () => {
    const offenders = readdirSync(routes)
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => {
        const text = code(readFileSync(join(routes, name), 'utf8'));
        return bypasses
          .filter((pattern) => pattern.test(text))
          .map((pattern) => `${name}: ${pattern}`);
      });
    expect(offenders).toEqual([]);
  });
});
