import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '@trawl/core';
import * as server from '@trawl/core/server';

describe('public surface of @trawl/core', () => {
  it('exports exactly the names in public-api.txt, so the surface changes only on purpose', () => {
    const expected = readFileSync(join(import.meta.dirname, 'public-api.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(Object.keys(core).sort()).toEqual(expected);
  });

  it('keeps what only a server needs on @trawl/core/server, pinned in server-api.txt', () => {
    const expected = readFileSync(join(import.meta.dirname, 'server-api.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(Object.keys(server).sort()).toEqual(expected);
    // Nothing is on both: the main entry is what a library user calls, nothing more.
    expect(Object.keys(server).filter((name) => name in core)).toEqual([]);
  });

  it('documents every error code in docs/errors.md', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/errors.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual([...core.errorCodes].sort());
  });
});
