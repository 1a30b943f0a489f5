/**
 * The key check of `trawl serve`, attacked as the first security pass did: `POST /%762/scrape` ran with no key as
 * team "" because the check read the raw URL while the router decoded it. Every route the server
 * registers under /v2, spelled every way a router might accept, must answer 401 without a valid
 * key (or 404 when the spelling routes nowhere), never run its handler. The Authorization header
 * is read strictly, the WebSocket subprotocol counts only on an upgrade, and /health tells a
 * stranger no more than up or down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { concretePath, registeredRoutes } from './registered-routes.ts';
import { rawRequest, startServe, type RawAnswer, type ServeProcess } from './serve-process.ts';

const key = 'fc-security-auth-key';
let server: ServeProcess;
beforeAll(async () => {
  server = await startServe({ TRAWL_API_KEYS: `team-a:${key}` });
});
afterAll(() => server?.stop());

const hex = (char: string) => char.charCodeAt(0).toString(16);

/** The spellings of `path` a router could take for the same route, or for none. */
function spellingsOf(path: string): string[] {
  const segments = path.split('/').slice(1);
  const joined = (replace: (segment: string, index: number) => string) =>
    '/' + segments.map(replace).join('/');
  const spellings = new Set<string>([path]);
  segments.forEach((_, at) => {
    const encodeFirst = (segment: string, index: number) =>
      index === at ? `%${hex(segment[0] ?? '')}${segment.slice(1)}` : segment;
    spellings.add(joined(encodeFirst));
    spellings.add(
      joined((segment, index) =>
        index === at ? [...segment].map((char) => `%${hex(char).toUpperCase()}`).join('') : segment,
      ),
    );
    spellings.add(joined((segment, index) => (index === at ? `./${segment}` : segment)));
    spellings.add(joined((segment, index) => (index === at ? `x/../${segment}` : segment)));
    spellings.add(joined((segment, index) => (index === at ? `%2e/${segment}` : segment)));
    spellings.add(joined((segment, index) => (index === at ? `/${segment}` : segment)));
    spellings.add(joined((segment, index) => (index === at ? segment.toUpperCase() : segment)));
  });
  spellings.add(`/${path}`);
  spellings.add(`/.${path}`);
  spellings.add(`${path}/`);
  spellings.add(`${path}//`);
  spellings.add(`${path}/.`);
  spellings.add(`${path}?x=1`);
  spellings.add(`${path};x=1`);
  spellings.add(path.replaceAll('/', '%2F').replace(/^%2F/, '/'));
  spellings.add(path.replace(/^\/v2\//, '/v2\\'));
  return [...spellings];
}

const jsonHeaders = { 'content-type': 'application/json' };

describe('the key check of trawl serve, walked over every registered route', () => {
  it('finds every route of the server, and only the dashboard, /cdp, /health and /media answer without a key', async () => {
    const routes = await registeredRoutes();
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'POST', url: '/v2/scrape' },
        { method: 'GET', url: '/v2/crawl/:id' },
        { method: 'POST', url: '/v2/parse' },
        { method: 'PATCH', url: '/v2/monitor/:id' },
        { method: 'POST', url: '/v2/browser/:id/execute' },
      ]),
    );
    expect(routes.length).toBeGreaterThan(40);
    // Routes outside /v2 (and v1, its translation) need no key; a new one must be added here
    // on purpose.
    const open = [...new Set(routes.map((route) => route.url))].filter(
      (url) => !url.startsWith('/v2/') && !url.startsWith('/v1/'),
    );
    // The dashboard's static files (`/`, `/assets/:name`) hold no data: the app asks for a key.
    expect(open.sort()).toEqual(['/', '/assets/:name', '/cdp/:id', '/health', '/media/:name']);
  });

  it('answers 401 or a plain 404 to every spelling of every /v2 route without a key', async () => {
    const routes = (await registeredRoutes()).filter((route) => route.url.startsWith('/v2/'));
    const failures: string[] = [];
    let tried = 0;
    for (const route of routes) {
      for (const path of spellingsOf(concretePath(route.url))) {
        const hasBody = route.method === 'POST' || route.method === 'PATCH';
        const answer = await rawRequest(
          server.port,
          route.method,
          path,
          hasBody ? jsonHeaders : {},
          hasBody ? '{"url":"http://127.0.0.1:1/"}' : undefined,
        );
        tried++;
        if (route.method === 'HEAD') {
          // HEAD runs the GET handler without a body: it must fare as the GET did.
          const get = await rawRequest(server.port, 'GET', path);
          if (answer.status !== get.status)
            failures.push(`HEAD ${path}: ${answer.status}, GET ${get.status}`);
          continue;
        }
        if (!refusedOrUnrouted(answer))
          failures.push(`${route.method} ${path}: ${answer.status} ${answer.body.slice(0, 120)}`);
      }
    }
    expect(tried).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  }, 120_000);

  it('runs the same spellings for a valid key, as the team of the key', async () => {
    const auth = { authorization: `Bearer ${key}` };
    for (const path of [
      '/v2/team/credit-usage',
      '/%762/team/credit-usage',
      '/v2/%74eam/credit-usage',
    ])
      expect((await rawRequest(server.port, 'GET', path, auth)).status, path).toBe(200);
    const scrape = await rawRequest(
      server.port,
      'POST',
      '/%762/scrape',
      { ...auth, ...jsonHeaders },
      '{"url":"http://127.0.0.1:1/"}',
    );
    // The handler ran for team-a: the private target is refused, not the key.
    expect(scrape.status).toBe(403);
    expect(JSON.parse(scrape.body)).toMatchObject({ code: 'URL_BLOCKED' });
  });

  it('refuses a WebSocket upgrade to a %-encoded /v2 path without a key', async () => {
    const path = `/%762/crawl/${concretePath(':id')}`;
    await expect(upgrade(path)).resolves.toBe('refused 401');
    // With the key as the subprotocol the upgrade goes through (and the unknown job closes it).
    await expect(upgrade(path, key)).resolves.toBe('closed 1008');
  });
});

/** Whether an answer is the key check's 401 or the not-found handler's 404 (no handler ran). */
function refusedOrUnrouted(answer: RawAnswer): boolean {
  let body: { success?: unknown; error?: unknown } = {};
  try {
    body = JSON.parse(answer.body) as typeof body;
  } catch {
    return false;
  }
  if (body.success !== false || typeof body.error !== 'string') return false;
  if (answer.status === 401) return body.error.startsWith('Unauthorized');
  return answer.status === 404 && body.error.startsWith('Not found: ');
}

/** Opens a WebSocket to `path`; resolves with how it ended (at most 10 s). */
function upgrade(path: string, protocol?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${path}`, protocol);
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('the upgrade did not end within 10 s'));
    }, 10_000);
    const end = (outcome: string) => {
      clearTimeout(timer);
      resolve(outcome);
    };
    socket.on('unexpected-response', (_request, response) => {
      end(`refused ${response.statusCode}`);
      socket.terminate();
    });
    socket.on('close', (code) => end(`closed ${code}`));
    socket.on('error', () => undefined);
  });
}

describe('the Authorization header', () => {
  const status = async (headers: Record<string, string>) =>
    (await rawRequest(server.port, 'GET', '/v2/team/credit-usage', headers)).status;

  it('takes only `Bearer <key>`, with the scheme in any case', async () => {
    for (const authorization of [`Bearer ${key}`, `bearer ${key}`, `BEARER ${key}`])
      expect(await status({ authorization }), authorization).toBe(200);
  });

  it('refuses the key without a scheme, glued to it, under another scheme, or with another token', async () => {
    for (const authorization of [
      key,
      `BEARER${key}`,
      `Bearer${key}`,
      `Basic ${key}`,
      `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      `Token ${key}`,
      `Bearer ${key} ${key}`,
      `Bearer ${key} extra`,
      `Bearer ${key},Bearer ${key}`,
      `Bearer Bearer ${key}`,
      `x Bearer ${key}`,
      'Bearer',
    ]) {
      expect(await status({ authorization }), authorization).toBe(401);
    }
  });

  it('does not take the WebSocket subprotocol on a plain HTTP call', async () => {
    expect(await status({ 'sec-websocket-protocol': key, upgrade: 'websocket' })).toBe(401);
    expect(await status({ 'sec-websocket-protocol': key })).toBe(401);
  });
});

describe('GET /health on a server with keys', () => {
  it('tells a caller without a valid key only that it is up', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: key }]) {
      const answer = await rawRequest(server.port, 'GET', '/health', headers);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
    }
  });

  it("counts a team's own running crawls for its key", async () => {
    const answer = await rawRequest(server.port, 'GET', '/health', {
      authorization: `Bearer ${key}`,
    });
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok', jobsRunning: 0 });
  });
});
