/**
 * @trawl/core/server — what a server built on the engine needs beyond the library's surface:
 * parsing a request once and handing core the resolved options, and the checks a server makes
 * before it starts work. Library users import `@trawl/core`; this subpath may change with the
 * server (issue 16).
 */
export { givenOptions, parseRequest, resolveOptions, reviseResolved } from './internal/resolved.ts';
export type { ParsedRequest } from './internal/resolved.ts';
export { parseOrThrow } from './internal/zod.ts';
export { checkCrawlLimit } from './crawl/options.ts';
