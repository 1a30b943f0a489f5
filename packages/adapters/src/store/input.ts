/**
 * Checks shared by the networked stores, run before anything reaches a backend. A bad argument is
 * the caller's mistake, so it throws `ValidationError` (BAD_REQUEST); were it sent on, the backend
 * would refuse it and the caller would see STORE_UNAVAILABLE, which says "retry later" and is
 * wrong. Not exported from the package.
 */
import {
  defaultListLimit,
  ValidationError,
  type StoreListOptions,
  type StoreSetOptions,
} from '@trawl/core';

/** Matches a surrogate outside a pair: with the `u` flag, a pair reads as one code point. */
const loneSurrogate = /\p{Cs}/u;

/**
 * Rejects a namespace or key that the backend could not store exactly.
 *
 * Strings go over the wire as UTF-8, so a lone surrogate would silently become U+FFFD and two
 * different keys would collide; PostgreSQL `text` cannot hold U+0000 at all.
 */
export function assertName(
  role: 'namespace' | 'key' | 'prefix' | 'table' | 'schema',
  name: unknown,
  options: { allowNul: boolean },
): asserts name is string {
  if (typeof name !== 'string') {
    throw new ValidationError(`The store ${role} must be a string, got ${typeof name}`);
  }
  if (loneSurrogate.test(name)) {
    throw new ValidationError(
      `The store ${role} ${JSON.stringify(name)} contains a lone UTF-16 surrogate; ` +
        'use well-formed text',
    );
  }
  if (!options.allowNul && name.includes('\0')) {
    throw new ValidationError(
      `The store ${role} ${JSON.stringify(name)} contains U+0000, which this backend cannot store`,
    );
  }
}

/** Turns a value into JSON text, refusing what JSON cannot represent. */
export function toJson(key: string, value: unknown): string {
  let json: string | undefined;
  try {
    // JSON.stringify escapes lone surrogates (ES2019), so the text itself is always well-formed.
    json = JSON.stringify(value);
  } catch (error) {
    // Circular structures and BigInt values throw.
    throw new ValidationError(
      `The value for store key ${JSON.stringify(key)} is not JSON-serialisable: ` +
        (error as Error).message,
      { cause: error },
    );
  }
  if (json === undefined) {
    // undefined, functions and symbols have no JSON form; storing them would read back as absent.
    throw new ValidationError(
      `The value for store key ${JSON.stringify(key)} is ${typeof value}, which has no JSON ` +
        'form; delete the key instead',
    );
  }
  return json;
}

/**
 * Reads `ttlMs` as whole milliseconds: `undefined` when the entry never expires, at most 0 when it
 * is born expired.
 */
export function ttlOf(options: StoreSetOptions | undefined): number | undefined {
  const ttlMs = options?.ttlMs;
  if (ttlMs === undefined || ttlMs === Number.POSITIVE_INFINITY) return undefined;
  if (typeof ttlMs !== 'number' || Number.isNaN(ttlMs)) {
    throw new ValidationError(`ttlMs must be a number of milliseconds, got ${String(ttlMs)}`);
  }
  // Redis PX takes integers only; rounding up never expires an entry early. The upper clamp keeps
  // the expiry inside both Redis's 64-bit milliseconds and PostgreSQL's timestamptz range.
  return Math.min(Math.ceil(ttlMs), Number.MAX_SAFE_INTEGER);
}

/** Reads `limit`, which the Store contract requires to be a positive integer. */
export function limitOf(options: StoreListOptions | undefined): number {
  const limit = options?.limit ?? defaultListLimit;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ValidationError(`Store list limit must be a positive integer (got ${String(limit)})`);
  }
  return Math.min(limit, Number.MAX_SAFE_INTEGER);
}

/** Describes an error from a client library in one line for a `StoreError` message. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    // node:net reports a refused dual-stack connect as an AggregateError with an empty message.
    return error.errors.map((inner) => reasonOf(inner)).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
