/**
 * Regex denial of service, as the attack: a crawl with
 * `includePaths: ["(a+)+$"]` of a page linking one 100,000-character path froze the whole server
 * on a backtracking engine. On the linear-time engine the crawl finishes and the server keeps
 * answering; patterns the engine cannot run are a 400 that names the construct.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
let server: KeyedServeProcess;
beforeAll(async () => {
  server = await serveProcess();
}, 90_000);
afterAll(() => server.kill());

describe('user regexes on a real server', () => {
  it('crawls a page linking a 100,000-character path with includePaths (a+)+$ and stays responsive', async () => {
    const started = await server.call('POST', '/v2/crawl', {
      url: `${fixture}/long-link.html`,
      includePaths: ['(a+)+$'],
      limit: 5,
    });
    expect(started.status).toBe(200);
    const id = started.body['id'] as string;
    let status: Record<string, unknown> = {};
    // Each poll is abandoned after 10 s: a frozen server fails here instead of hanging the run.
    for (let i = 0; i < 120; i++) {
      status = (await server.call('GET', `/v2/crawl/${id}`, undefined, 10_000)).body;
      if (status['status'] !== 'scraping') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(status['status']).toBe('completed');
    // Neither the start page (its path does not match) nor the long link (it ends in '!') is in.
    expect(status['data']).toEqual([]);
    const other = await server.call('GET', '/v2/crawl/active', undefined, 10_000);
    expect(other.status).toBe(200);
  }, 90_000);

  it.each([
    ['(?<=/blog)/post', 'lookbehind'],
    ['^/(?!admin)', 'lookahead'],
    ['/(\\w+)/\\1', 'backreference'],
  ])('refuses %s with 400 BAD_REQUEST naming the %s', async (pattern, construct) => {
    const refused = await server.call('POST', '/v2/crawl', {
      url: `${fixture}/long-link.html`,
      excludePaths: [pattern],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(refused.body['error']).toContain(construct);
    expect(refused.body['error']).toContain(pattern);
  });
});
