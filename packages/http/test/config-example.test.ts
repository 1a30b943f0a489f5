/**
 * trawl.config.example.json, the file an operator copies to start a TRAWL_CONFIG of their own:
 * every setting of the configuration table, in its order, each with its default, or null where
 * the default is worked out at start (unset, from the machine, or from the process role).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { resolveEngineConfig } from '@trawl/core';
import { configRows, loadConfig } from '@trawl/http';

const path = join(import.meta.dirname, '../../../trawl.config.example.json');
const example = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const engineDefaults = resolveEngineConfig() as unknown as Record<string, unknown>;

describe('trawl.config.example.json', () => {
  it('has every key of the configuration table, in its order, and no other', () => {
    expect(Object.keys(example)).toEqual(configRows.map((row) => row.key));
  });

  it('gives each key its default, or null where there is none to write down', () => {
    for (const row of configRows) {
      const value = example[row.key];
      if (value === null) continue;
      const own = (row.schema as z.ZodType).safeParse(undefined);
      const expected = (own.success ? own.data : undefined) ?? engineDefaults[row.key];
      expect(value, row.key).toEqual(expected);
    }
  });

  it('configures exactly what no file does, when used as it is', () => {
    expect(loadConfig({ role: 'cli', env: {}, configFile: path })).toEqual(
      loadConfig({ role: 'cli', env: {} }),
    );
  });
});
