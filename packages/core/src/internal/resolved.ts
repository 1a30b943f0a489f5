/**
 * Options parsed once. A capability's schema is the one home of its defaults and
 * checks; `resolveOptions` parses raw input with it and remembers the result, so options that
 * already came out of that schema pass through core's public functions without a second parse.
 * The server parses a request body once, with the capability's schema extended by the wire's own
 * fields (`url`, `webhook`, `origin` …), and hands core the resolved options (`parseRequest`).
 */
import type { z } from 'zod';
import { parseOrThrow } from './zod.ts';

/** Which schema resolved an options object, and what its caller wrote. */
interface Resolution {
  schema: z.ZodType;
  given: Readonly<Record<string, unknown>>;
}

// Keyed by the resolved object itself: a copy (spread, JSON) is raw input again, so nothing a
// caller changes after resolution slips past the schema.
const resolutions = new WeakMap<object, Resolution>();

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** True when `value` came out of `schema` (by `resolveOptions`, `parseRequest` or `reviseResolved`). */
export function isResolvedBy(schema: z.ZodType, value: unknown): boolean {
  return isObject(value) && resolutions.get(value)?.schema === schema;
}

/**
 * `input` parsed by `schema`, or `input` itself when that schema resolved it already.
 * @throws BAD_REQUEST naming the first bad field
 */
export function resolveOptions<S extends z.ZodType>(
  schema: S,
  input: unknown,
  what: string,
): z.output<S> {
  if (isResolvedBy(schema, input)) return input as z.output<S>;
  const resolved = parseOrThrow(schema, input, what);
  remember(schema, resolved, isObject(input) ? (input as Record<string, unknown>) : {});
  return resolved;
}

/**
 * The fields the caller set, before defaults, of options `resolveOptions` returned (to tell an
 * explicit value from its default); the options themselves when they were never resolved.
 */
export function givenOptions(resolved: object): Readonly<Record<string, unknown>> {
  return resolutions.get(resolved)?.given ?? (resolved as Record<string, unknown>);
}

/**
 * Resolved options with some fields changed, still resolved. Only for values the caller has
 * checked against the same schema (a crawl limit capped to the credits left, the options a crawl
 * prompt proposed, each validated); anything else goes through `resolveOptions`.
 */
export function reviseResolved<T extends object>(
  schema: z.ZodType,
  resolved: T,
  changes: Partial<T>,
  drop: readonly (keyof T)[] = [],
): T {
  const revised = { ...resolved, ...changes };
  for (const key of drop) delete revised[key];
  const given = { ...givenOptions(resolved), ...changes };
  for (const key of drop) delete (given as Record<PropertyKey, unknown>)[key];
  remember(schema, revised, given);
  return revised;
}

/** A request body split into the wire's own fields and the options core runs with. */
export interface ParsedRequest<Fields, Options> {
  /** The fields the request adds around the options (`url`, `webhook` …). */
  fields: Fields;
  /** The options, resolved by the capability's schema: core does not parse them again. */
  options: Options;
  /** The options as the client wrote them, without the request's own fields. */
  given: Record<string, unknown>;
}

/**
 * Parses a request body once with `requestSchema` (an options schema extended by the request's
 * own fields, named in `fieldKeys`) and returns the options as `optionsSchema` resolves them.
 * @throws BAD_REQUEST naming the first bad field
 */
export function parseRequest<
  R extends z.ZodType<Record<string, unknown>>,
  O extends z.ZodType,
  K extends string,
>(
  requestSchema: R,
  optionsSchema: O,
  fieldKeys: readonly K[],
  body: unknown,
  what: string,
): ParsedRequest<Pick<z.output<R>, K & keyof z.output<R>>, z.output<O>> {
  const parsed = parseOrThrow(requestSchema, body ?? {}, what);
  const fields: Record<string, unknown> = {};
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if ((fieldKeys as readonly string[]).includes(key)) fields[key] = value;
    else options[key] = value;
  }
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(isObject(body) ? body : {})) {
    if (!(fieldKeys as readonly string[]).includes(key)) given[key] = value;
  }
  remember(optionsSchema, options, given);
  return {
    fields: fields as Pick<z.output<R>, K & keyof z.output<R>>,
    options: options as z.output<O>,
    given,
  };
}

function remember(schema: z.ZodType, resolved: unknown, given: Record<string, unknown>): void {
  if (isObject(resolved)) resolutions.set(resolved, { schema, given });
}
