import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as core from '@trawl/core';

describe('public surface of @trawl/core', () => {
  it('exports exactly the names in public-api.txt, so the surface changes only on purpose', () => {
    const expected = readFileSync(join(import.meta.dirname, 'public-api.txt'), 'utf8')
      .trim()
      .split('\n');
    expect(Object.keys(core).sort()).toEqual(expected);
  });

  it('documents every error code in docs/errors.md', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/errors.md'), 'utf8');
    const documented = [...doc.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual([...core.errorCodes].sort());
  });
});
