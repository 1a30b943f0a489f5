/**
 * JSON Schemas a caller sends (the json format, extract, the agent): what the validator may be
 * made to do is bounded before compiling, compiled validators are kept in a bounded cache, and
 * each schema is compiled apart, so one caller's `$id` is invisible to another's schema.
 */
import { describe, expect, it } from 'vitest';
import { compiledSchemaCount, compileSchema, maxCompiledSchemas } from '../../src/llm/schema.js';

const refused = (schema: unknown) => {
  try {
    compileSchema(schema, ['schema']);
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('the schema was accepted');
};

describe('JSON Schema limits', () => {
  it('keeps at most maxCompiledSchemas validators however many distinct schemas come', () => {
    // 250 distinct schemas of ~57 KB each grew the process by ~150 MB when none was freed.
    const filler = 'x'.repeat(56 * 1024);
    for (let index = 0; index < 250; index++)
      compileSchema(
        {
          type: 'object',
          description: filler,
          properties: { [`field${index}`]: { type: 'string' } },
        },
        ['schema'],
      );
    expect(compiledSchemaCount()).toBeLessThanOrEqual(maxCompiledSchemas);
  });

  it('compiles each schema apart: the same $id twice, and no $ref to another schema', () => {
    const id = 'https://schemas.example/item';
    compileSchema({ $id: id, type: 'object', properties: { a: { type: 'string' } } }, ['schema']);
    const other = compileSchema({ $id: id, type: 'number' }, ['schema']);
    expect(other(3)).toBe(true);
    expect(refused({ $ref: id })).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it.each([
    [
      'anyOf of two $refs, 21 levels deep',
      (() => {
        const defs: Record<string, unknown> = { l0: { not: {} } };
        for (let level = 1; level <= 21; level++)
          defs[`l${level}`] = {
            anyOf: [{ $ref: `#/$defs/l${level - 1}` }, { $ref: `#/$defs/l${level - 1}` }],
          };
        return { $defs: defs, $ref: '#/$defs/l21' };
      })(),
      /more than 10000 subschemas/,
    ],
    ['a $ref loop on the same value', { anyOf: [{ $ref: '#' }] }, /without descending/],
    [
      'a recursion that reaches each item twice',
      { anyOf: [{ items: { $ref: '#' } }, { items: { $ref: '#' } }] },
      /more than one way/,
    ],
    [
      'nesting past 32 levels',
      JSON.parse(`${'{"properties":{"a":'.repeat(40)}{}${'}}'.repeat(40)}`) as object,
      /deeper than 32/,
    ],
    [
      'more than 128 $refs',
      {
        $defs: { s: { type: 'string' } },
        anyOf: Array.from({ length: 130 }, () => ({ $ref: '#/$defs/s' })),
      },
      /more than 128 \$refs/,
    ],
  ])('refuses %s with a 400 naming the limit', (_, schema, limit) => {
    const error = refused(schema);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(limit);
  });

  it.each([
    [
      'a tree',
      { type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } },
    ],
    [
      'a binary tree',
      { type: 'object', properties: { left: { $ref: '#' }, right: { $ref: '#' } } },
    ],
    [
      'any JSON value',
      {
        $defs: {
          value: {
            anyOf: [
              { type: ['string', 'number', 'boolean', 'null'] },
              { type: 'array', items: { $ref: '#/$defs/value' } },
              { type: 'object', additionalProperties: { $ref: '#/$defs/value' } },
            ],
          },
        },
        $ref: '#/$defs/value',
      },
    ],
  ])('accepts %s', (_, schema) => {
    expect(typeof compileSchema(schema, ['schema'])).toBe('function');
  });
});
