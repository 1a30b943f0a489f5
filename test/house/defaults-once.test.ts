/**
 * One home for defaults: every default of a request option lives in its capability's
 * schema. This reads the defaults out of the schemas themselves and fails when source code under
 * packages/ repeats one as a fallback (`limit ?? 10_000`, `onlyMainContent: flag ?? true`).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  batchScrapeOptionsSchema,
  crawlOptionsSchema,
  mapOptionsSchema,
  parseOptionsSchema,
  scrapeOptionsSchema,
  searchOptionsSchema,
} from '@trawl/core';
import { repositoryRoot as root, sourceFiles } from './source-files.ts';

interface Default {
  field: string;
  value: unknown;
}

/** The scalar defaults of an object schema's fields (and of nested object fields). */
function defaultsOf(schema: z.ZodType, found: Default[] = []): Default[] {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  if (def['type'] === 'object') {
    for (const [field, inner] of Object.entries(def['shape'] as Record<string, z.ZodType>)) {
      const innerDef = (inner as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
      if (innerDef['type'] === 'default') {
        const value = innerDef['defaultValue'];
        if (['number', 'boolean', 'string'].includes(typeof value)) found.push({ field, value });
      }
      defaultsOf(unwrap(inner), found);
    }
  }
  return found;
}

function unwrap(schema: z.ZodType): z.ZodType {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  const inner = def['innerType'] as z.ZodType | undefined;
  return inner && ['default', 'prefault', 'optional', 'nullable'].includes(def['type'] as string)
    ? unwrap(inner)
    : schema;
}

/** The ways a literal is written in our code: 10000 as `10000` or `10_000`. */
function spellings(value: unknown): string[] {
  if (typeof value === 'string') return [`'${value}'`, `"${value}"`];
  if (typeof value !== 'number') return [String(value)];
  const plain = String(value);
  const grouped = plain.replace(/\B(?=(\d{3})+(?!\d))/g, '_');
  return [...new Set([plain, grouped])];
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('defaults of request options', () => {
  const schemas = [
    scrapeOptionsSchema,
    crawlOptionsSchema,
    batchScrapeOptionsSchema,
    mapOptionsSchema,
    searchOptionsSchema,
    parseOptionsSchema,
  ];
  const defaults = schemas.flatMap((schema) => defaultsOf(schema));

  it('finds the defaults in the schemas (the check below has something to look for)', () => {
    expect(defaults).toContainEqual({ field: 'limit', value: 10_000 });
    expect(defaults).toContainEqual({ field: 'onlyMainContent', value: true });
  });

  it('repeats none of them as a `??` fallback anywhere in packages/*/src', () => {
    const repeated: string[] = [];
    const files = sourceFiles().map((path) => ({ path, text: readFileSync(path, 'utf8') }));
    for (const { field, value } of defaults) {
      const literal = spellings(value).map(escape).join('|');
      // The field's name, then on the same line a `??` falling back to its default.
      const pattern = new RegExp(`\\b${escape(field)}\\b[^\\n;]{0,60}\\?\\?\\s*(${literal})\\b`);
      for (const { path, text } of files) {
        const line = text.split('\n').findIndex((content) => pattern.test(content));
        if (line >= 0)
          repeated.push(`${relative(root, path)}:${line + 1} repeats ${field}'s default`);
      }
    }
    expect(repeated).toEqual([]);
  });
});
