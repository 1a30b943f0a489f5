/**
 * JSON request bodies with a nesting limit. A 10,000-level `webhook.metadata` parses, but later
 * overflows the stack of whatever walks it (storing the job answered 503 STORE_UNAVAILABLE, a
 * server error the client is told to retry); it is refused up front with a 400 instead.
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '@trawl/core';

/**
 * Deepest nesting of objects and arrays a JSON body may have. JSON schemas of `formats: json`
 * and webhook metadata need a few dozen levels at most.
 */
export const maxJsonDepth = 100;

const openBrace = 0x7b;
const openBracket = 0x5b;
const closeBrace = 0x7d;
const closeBracket = 0x5d;
const quote = 0x22;
const backslash = 0x5c;

/**
 * Whether the JSON `text` nests objects and arrays deeper than `max`. One pass over the text,
 * without parsing it, so a hostile body costs no more than reading it.
 */
export function jsonTextTooDeep(text: string, max: number = maxJsonDepth): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === backslash) index++;
      else if (char === quote) inString = false;
    } else if (char === quote) {
      inString = true;
    } else if (char === openBrace || char === openBracket) {
      if (++depth > max) return true;
    } else if (char === closeBrace || char === closeBracket) {
      depth--;
    }
  }
  return false;
}

/**
 * Whether an already parsed value nests deeper than `max` (a multipart part the upload plugin
 * parsed itself). Walks with an explicit stack, so depth cannot overflow the call stack.
 */
export function jsonValueTooDeep(value: unknown, max: number = maxJsonDepth): boolean {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth + 1 > max) return true;
    for (const child of Object.values(next.value))
      pending.push({ value: child, depth: next.depth + 1 });
  }
  return false;
}

/** The error for a body nested deeper than {@link maxJsonDepth}. */
export function tooDeepError(what: string): ValidationError {
  return new ValidationError(
    `${what} nests objects and arrays deeper than ${maxJsonDepth} levels; flatten it`,
    { details: [{ path: [], message: `nesting deeper than ${maxJsonDepth} levels` }] },
  );
}

/** Methods whose requests have no body to read, whatever their content type says. */
const bodilessMethods = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS']);

/**
 * Replaces the `application/json` body parser of `app` with one that refuses bodies nested deeper
 * than {@link maxJsonDepth} (400 BAD_REQUEST) and otherwise parses as Fastify does, keeping its
 * `__proto__` and `constructor` poisoning checks.
 */
export function limitJsonDepth(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // firecrawl-py sends `Content-Type: application/json` on every request, a DELETE without a
    // body included; a method that carries no body has nothing to parse.
    if (bodilessMethods.has(request.method) && text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonTextTooDeep(text)) {
      done(tooDeepError('The JSON body'), undefined);
      return;
    }
    void parseJson(request, text, done);
  });
}
