/**
 * POST /v2/search inside the server (Fastify inject): its own rate-limit group, the answer when
 * nothing can be searched, and the job record feedback reads.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore, resolveEngineConfig } from '@trawl/core';
import { ApiKeys, buildServer } from '@trawl/http';

const key = 'fc-route-key';
function server(store = new MemoryStore(), ratePerMinute = 0) {
  return buildServer({
    store,
    config: resolveEngineConfig(),
    keys: ApiKeys.parse(`team-r:${key}`),
    logLevel: 'silent',
    limits: { ratePerMinute },
  });
}
const post = (app: ReturnType<typeof server>, url: string, payload: object) =>
  app.inject({ method: 'POST', url, payload, headers: { authorization: `Bearer ${key}` } });

describe('POST /v2/search', () => {
  it('answers 501 NOT_CONFIGURED, not 500, when the store has no index and no provider is set', async () => {
    const app = server();
    const answer = await post(app, '/v2/search', { query: 'anything' });
    expect(answer.statusCode).toBe(501);
    expect(answer.json()).toMatchObject({ success: false, code: 'NOT_CONFIGURED' });
    await app.close();
  });

  it('counts searches in a rate-limit group of their own', async () => {
    const app = server(new MemoryStore(), 1);
    expect((await post(app, '/v2/search', { query: 'a' })).statusCode).toBe(501);
    expect((await post(app, '/v2/search', { query: 'b' })).statusCode).toBe(429);
    // Other groups still have their own allowance.
    expect((await post(app, '/v2/map', { url: 'not a url' })).statusCode).toBe(400);
    await app.close();
  });

  it('needs a key', async () => {
    const app = server();
    const answer = await app.inject({ method: 'POST', url: '/v2/search', payload: { query: 'a' } });
    expect(answer.statusCode).toBe(401);
    await app.close();
  });
});
