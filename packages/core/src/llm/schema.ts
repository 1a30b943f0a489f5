/**
 * JSON Schema handling for LLM answers: a caller's schema is checked before any model
 * call (a bad one is a 400 naming the path), and every answer is validated against it, so a
 * wrong answer can be sent back to the model with the validator's own words.
 *
 * ajv does the work: it is the validator most of the JSON Schema world uses, and it compiles a
 * schema once into a function, so each answer costs a function call. What that call may cost is
 * bounded before compiling (schema-bounds.ts).
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ValidationError } from '../errors.ts';
import { checkSchemaBounds, SchemaTooCostly } from './schema-bounds.ts';

/** Largest schema accepted, as JSON text: a schema is sent with every call, so it costs tokens. */
export const maxSchemaBytes = 64 * 1024;

// strict: false lets the vendor keywords some zod converters add through; allErrors gives the
// model every problem at once on the retry.
const ajvOptions = { strict: false, allErrors: true } as const;

/**
 * Checks schemas against the JSON Schema meta-schema only: `validateSchema` registers nothing,
 * so one instance serves every caller.
 */
const metaValidator = new Ajv(ajvOptions);

/**
 * Compiled validators by schema text, least recently used first: a crawl sends the same schema
 * for every page. Each was compiled by an Ajv instance of its own, dropped with it, so a `$id`
 * one caller sends is never seen by another's schema (one shared instance kept every `$id` ever
 * compiled, refused another team's schema with the same `$id` and resolved its `$ref`s to the
 * first one) and an evicted schema frees its memory. A schema's text is all its validator
 * depends on, so equal texts may share one whoever sent them.
 */
const compiled = new Map<string, ValidateFunction>();
/** Most validators kept: 64 schemas of the 64 KB limit take a few tens of MB. */
export const maxCompiledSchemas = 64;

/** How many compiled validators are kept now (at most `maxCompiledSchemas`). */
export const compiledSchemaCount = () => compiled.size;

/**
 * Checks that `schema` is a JSON Schema this engine can use, without compiling it: a bad one is a
 * 400 before anything else (even before the 501 of a missing model), yet nothing is kept for a
 * request that goes no further. Returns the schema's JSON text.
 * @throws BAD_REQUEST naming the path and what is wrong, or the limit it passes
 */
export function checkSchema(schema: unknown, path: readonly (string | number)[]): string {
  const where = path.join('.');
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new ValidationError(`'${where}' must be a JSON Schema object`, {
      details: [{ path: [...path], message: 'expected a JSON Schema object' }],
    });
  const text = JSON.stringify(schema);
  if (text.length > maxSchemaBytes)
    throw new ValidationError(
      `'${where}' is ${text.length} bytes of JSON; a schema may have at most ${maxSchemaBytes}`,
      { details: [{ path: [...path], message: `schema larger than ${maxSchemaBytes} bytes` }] },
    );
  // A schema compiled before passed these checks already (a crawl sends one for every page).
  if (compiled.has(text)) return text;
  try {
    if (!metaValidator.validateSchema(schema))
      throw new Error(metaValidator.errorsText(metaValidator.errors, { dataVar: 'data' }));
    checkSchemaBounds(schema);
  } catch (error) {
    throw schemaRefusal(error, path);
  }
  return text;
}

function schemaRefusal(error: unknown, path: readonly (string | number)[]): ValidationError {
  const where = path.join('.');
  if (error instanceof SchemaTooCostly)
    return new ValidationError(`'${where}' is refused: ${error.message}`, {
      details: [{ path: [...path], message: error.message }],
    });
  // ajv reports a bad schema as "data/properties/x/type must be …".
  const message = (error as Error).message.replace(/^schema is invalid: /, '');
  const inner = /data((?:\/[^ ]*)?)/.exec(message)?.[1] ?? '';
  const innerPath = inner.split('/').filter(Boolean);
  return new ValidationError(
    `'${[where, ...innerPath].join('.')}' is not a valid JSON Schema: ${message}`,
    { details: [{ path: [...path, ...innerPath], message }] },
  );
}

/**
 * Checks `schema` (see checkSchema) and returns its validator, compiled once per schema text.
 * `path` names the field the schema came from in the request (`formats.0.schema`).
 * @throws BAD_REQUEST naming the path and what is wrong, or the limit it passes
 */
export function compileSchema(
  schema: unknown,
  path: readonly (string | number)[],
): ValidateFunction {
  const text = checkSchema(schema, path);
  const cached = compiled.get(text);
  if (cached) {
    compiled.delete(text);
    compiled.set(text, cached);
    return cached;
  }
  let validate: ValidateFunction;
  try {
    validate = new Ajv({ ...ajvOptions, validateSchema: false }).compile(schema as object);
  } catch (error) {
    throw schemaRefusal(error, path);
  }
  if (compiled.size >= maxCompiledSchemas) compiled.delete(compiled.keys().next().value!);
  compiled.set(text, validate);
  return validate;
}

/** The validator's complaints about an answer, one line each, for the model and for warnings. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 20)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`)
    .join('; ');
}
