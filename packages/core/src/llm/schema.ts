/**
 * JSON Schema handling for LLM answers (issue 18): a caller's schema is checked before any model
 * call (a bad one is a 400 naming the path), and every answer is validated against it, so a
 * wrong answer can be sent back to the model with the validator's own words.
 *
 * ajv does the work: it is the validator most of the JSON Schema world uses, and it compiles a
 * schema once into a function, so each answer costs a function call.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ValidationError } from '../errors.ts';

/** Largest schema accepted, as JSON text: a schema is sent with every call, so it costs tokens. */
export const maxSchemaBytes = 64 * 1024;

// strict: false lets the vendor keywords some zod converters add through; allErrors gives the
// model every problem at once on the retry.
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: true });

/** Compiled validators by schema text: a crawl sends the same schema for every page. */
const compiled = new Map<string, ValidateFunction>();
const maxCompiled = 200;

/**
 * Checks that `schema` is a JSON Schema this engine can use and returns its validator.
 * `path` names the field the schema came from in the request (`formats.0.schema`).
 * @throws BAD_REQUEST naming the path and what is wrong
 */
export function compileSchema(
  schema: unknown,
  path: readonly (string | number)[],
): ValidateFunction {
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
  const cached = compiled.get(text);
  if (cached) return cached;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    // ajv reports a bad schema as "schema is invalid: data/properties/x/type must be …".
    const message = (error as Error).message.replace(/^schema is invalid: /, '');
    const inner = /data((?:\/[^ ]*)?)/.exec(message)?.[1] ?? '';
    const innerPath = inner.split('/').filter(Boolean);
    throw new ValidationError(
      `'${[where, ...innerPath].join('.')}' is not a valid JSON Schema: ${message}`,
      { details: [{ path: [...path, ...innerPath], message }] },
    );
  }
  if (compiled.size >= maxCompiled) compiled.clear();
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
