/**
 * Feedback over real HTTP: `POST /v2/feedback` and `POST /v2/search/{jobId}/feedback` against a
 * served Trawl scraping the fixture site. Every constraint of the body and every error variant,
 * with status and exact body; refunds through the credits ledger under the daily cap; and the
 * operator's `trawl feedback list`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { resolveEngineConfig, SqliteStore } from '@trawl/core';
import { ApiKeys, buildServer, runCli, type ServerOptions } from '@trawl/http';

const fixture = inject('fixtureUrl');
const page = `${fixture}/articles/plain.html`;

type Server = Awaited<ReturnType<typeof start>>;
/** A JSON answer: the fields the tests read. */
interface Answer extends Record<string, unknown> {
  data?: { metadata: { scrapeId: string } };
  details?: { path: (string | number)[] }[];
}
const closers: (() => Promise<void>)[] = [];

/**
 * A served Trawl on its own SQLite file; `call` speaks to it as team-a (key-a) or team-b. It is
 * closed after the test, unless `perSuite` (the suite closes it).
 */
async function start(options: Partial<ServerOptions> = {}, perSuite = false) {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-feedback-'));
  const store = new SqliteStore({ path: join(dataDir, 'trawl.db') });
  const app = buildServer({
    store,
    config: resolveEngineConfig({ allowPrivateAddresses: true }),
    keys: ApiKeys.parse('team-a:key-a,team-b:key-b'),
    logLevel: 'silent',
    ...options,
  });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await app.close();
    await store.close();
  };
  if (!perSuite) closers.push(close);
  const call = async (path: string, body?: unknown, key = 'key-a', method = 'POST') => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  /** Scrapes the fixture page; resolves with its scrapeId. */
  const scrapeId = async (key = 'key-a') => {
    const answer = await call('/v2/scrape', { url: page }, key);
    expect(answer.status).toBe(200);
    return String(answer.body.data?.metadata.scrapeId);
  };
  /**
   * A finished search job of `team`, recorded and charged as a search route records and charges
   * its jobs (this server has no search endpoint yet).
   */
  const searchJob = async (team: string, credits: number, status: 'completed' | 'failed') => {
    const record = await app.records.start(team, 'search', 'trawl feedback');
    await app.records.finish(record.id, { status, creditsUsed: credits });
    await app.ledger.debit(team, credits, { endpoint: 'search', jobId: record.id });
    return record.id;
  };
  return { app, store, dataDir, call, scrapeId, searchJob, close };
}

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const anyJob = '0190a6a4-1111-7000-8000-000000000001';
const valid = { jobId: anyJob, endpoint: 'scrape', rating: 'bad', note: 'the body was empty' };
const times = <T>(count: number, make: (index: number) => T) =>
  Array.from({ length: count }, (_, index) => make(index));
const document = { markdown: '# Title', metadata: { sourceURL: 'https://a.example/' } };

/**
 * One row per constraint: a body breaking only it, and the path of the one field issue the
 * answer must name. The spec's anonymous list, in order, is the first seven groups
 * (docs/feedback.md maps each to its field).
 */
const constraints: [string, Record<string, unknown>, (string | number)[]][] = [
  // "an array with at most 20 elements"
  [
    'missingContent: at most 20 entries',
    { missingContent: times(21, (i) => ({ topic: `t${i}` })) },
    ['missingContent'],
  ],
  [
    'missingContent: a topic is not empty',
    { missingContent: [{ topic: '  ' }] },
    ['missingContent', 0, 'topic'],
  ],
  [
    'missingContent: a topic has at most 200 characters',
    { missingContent: [{ topic: 'x'.repeat(201) }] },
    ['missingContent', 0, 'topic'],
  ],
  [
    'missingContent: a description has at most 2000 characters',
    { missingContent: [{ topic: 'a', description: 'x'.repeat(2001) }] },
    ['missingContent', 0, 'description'],
  ],
  // "a string with at most 2000 characters"
  [
    'querySuggestions: at most 2000 characters',
    { querySuggestions: 'q'.repeat(2001) },
    ['querySuggestions'],
  ],
  // "an array with at most 50 elements"
  [
    'valuableSources: at most 50 entries',
    { valuableSources: times(51, (i) => ({ url: `https://a.example/${i}` })) },
    ['valuableSources'],
  ],
  [
    'valuableSources: a url is http(s)',
    { valuableSources: [{ url: 'ftp://a.example/' }] },
    ['valuableSources', 0, 'url'],
  ],
  [
    'valuableSources: a reason has at most 1000 characters',
    { valuableSources: [{ url: 'https://a.example/', reason: 'r'.repeat(1001) }] },
    ['valuableSources', 0, 'reason'],
  ],
  // "an array with at most 20 elements whose strings have at most 80 characters and match ^[a-z0-9][a-z0-9_-]*$"
  ['issues: at most 20 labels', { issues: times(21, (i) => `issue-${i}`) }, ['issues']],
  ['issues: a label has at most 80 characters', { issues: ['a'.repeat(81)] }, ['issues', 0]],
  ['issues: a label matches the pattern', { issues: ['Empty Markdown'] }, ['issues', 0]],
  ['issues: a label starts with a letter or digit', { issues: ['_empty'] }, ['issues', 0]],
  // "a string with at most 4000 characters"
  ['note: at most 4000 characters', { note: 'n'.repeat(4001) }, ['note']],
  // "an array with at most 100 elements"
  ['pageNumbers: at most 100 numbers', { pageNumbers: times(101, (i) => i + 1) }, ['pageNumbers']],
  ['pageNumbers: each at least 1', { pageNumbers: [0] }, ['pageNumbers', 0]],
  ['pageNumbers: whole numbers', { pageNumbers: [1.5] }, ['pageNumbers', 0]],
  // "a second array with at most 20 elements … the same pattern"
  ['tags: at most 20 tags', { tags: times(21, (i) => `tag${i}`) }, ['tags']],
  ['tags: a tag has at most 80 characters', { tags: ['t'.repeat(81)] }, ['tags', 0]],
  ['tags: a tag matches the pattern', { tags: ['UPPER'] }, ['tags', 0]],
  // metadata: at most 8 KB, never a full endpoint result
  ['metadata: at most 8 KB of JSON', { metadata: { text: 'm'.repeat(8 * 1024) } }, ['metadata']],
  ['metadata: not a document', { metadata: { page: document } }, ['metadata', 'page', 'markdown']],
  [
    'metadata: not an answer body',
    { metadata: { answer: { success: true, data: { web: [] } } } },
    ['metadata', 'answer'],
  ],
  [
    'metadata: not a map result',
    { metadata: { links: [{ url: 'https://a.example/' }] } },
    ['metadata', 'links'],
  ],
  ['metadata: an object', { metadata: ['a'] }, ['metadata']],
  // The other fields
  ['jobId: required', { jobId: undefined }, ['jobId']],
  ['jobId: a UUID', { jobId: 'job-1' }, ['jobId']],
  ['endpoint: search, scrape, parse or map', { endpoint: 'crawl' }, ['endpoint']],
  ['rating: good, partial or bad', { rating: 'meh' }, ['rating']],
  ['url: an http(s) URL', { url: 'javascript:alert(1)' }, ['url']],
  ['url: at most 2048 characters', { url: `https://a.example/${'p'.repeat(2048)}` }, ['url']],
  ['origin: a string', { origin: 7 }, ['origin']],
  ['unknown keys are refused', { jobID: anyJob }, []],
  // The rule: at least one meaningful signal
  ['at least one signal: none', { note: undefined }, []],
  ['at least one signal: a blank note is none', { note: '   ' }, []],
  ['at least one signal: tags alone are none', { note: undefined, tags: ['slow'] }, []],
  [
    'at least one signal: empty lists are none',
    { note: undefined, issues: [], pageNumbers: [] },
    [],
  ],
  // Search jobs, also through the generic endpoint: the per-rating rule
  ['search: good needs a valuable source', { endpoint: 'search', rating: 'good' }, []],
  [
    'search: partial needs a source or missing content',
    { endpoint: 'search', rating: 'partial', querySuggestions: 'q' },
    [],
  ],
  [
    'search: bad needs missing content or a better query',
    { endpoint: 'search', rating: 'bad', valuableSources: [{ url: 'https://a.example/' }] },
    [],
  ],
];

describe('POST /v2/feedback: every constraint of the body', () => {
  let server: Server;
  beforeAll(async () => {
    server = await start({}, true);
  });
  afterAll(() => server.close());

  it.each(constraints)('%s → 400 INVALID_BODY naming the field', async (_name, change, path) => {
    const body: Record<string, unknown> = { ...valid, ...change };
    for (const key of Object.keys(body)) if (body[key] === undefined) delete body[key];
    const answer = await server.call('/v2/feedback', body);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({
      error: 'Invalid request body',
      success: false,
      details: [expect.objectContaining({ path, message: expect.any(String) })],
      feedbackErrorCode: 'INVALID_BODY',
    });
  });

  it('accepts a body at every limit (the limits are inclusive)', async () => {
    const answer = await server.call('/v2/feedback', {
      ...valid,
      issues: times(20, (i) => `${'a'.repeat(78)}${String(i).padStart(2, '0')}`),
      tags: times(20, (i) => `t${i}`),
      note: 'n'.repeat(4000),
      url: 'https://a.example/page',
      pageNumbers: times(100, (i) => i + 1),
      missingContent: times(20, (i) => ({
        topic: `${i}`.padEnd(200, 'x'),
        description: 'd'.repeat(2000),
      })),
      valuableSources: times(50, (i) => ({
        url: `https://a.example/${i}`,
        reason: 'r'.repeat(1000),
      })),
      querySuggestions: 'q'.repeat(2000),
      metadata: { text: 'm'.repeat(8 * 1024 - 11) },
      origin: 'js-sdk@4.42.0',
      integration: null,
    });
    // Valid, so it reaches the job check: the job does not exist.
    expect(answer).toMatchObject({ status: 404, body: { feedbackErrorCode: 'JOB_NOT_FOUND' } });
  });

  it('lists every failing field at once', async () => {
    const answer = await server.call('/v2/feedback', { ...valid, rating: 'meh', pageNumbers: [0] });
    expect(answer.status).toBe(400);
    expect(answer.body.details?.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([['rating'], ['pageNumbers', 0]]),
    );
  });

  it('checks the search route’s body and job id the same way', async () => {
    const route = `/v2/search/${anyJob}/feedback`;
    const refused = [
      [route, { rating: 'good', missingContent: [{ topic: 'a' }] }, []],
      [
        route,
        { rating: 'bad', missingContent: times(21, (i) => ({ topic: `t${i}` })) },
        ['missingContent'],
      ],
      [route, { rating: 'bad', querySuggestions: 'q', note: 'not a search field' }, []],
      ['/v2/search/not-a-uuid/feedback', { rating: 'bad', querySuggestions: 'q' }, ['jobId']],
    ] as const;
    for (const [path, body, field] of refused) {
      const answer = await server.call(path, body);
      expect([path, answer.status, answer.body]).toEqual([
        path,
        400,
        {
          error: 'Invalid request body',
          success: false,
          details: [expect.objectContaining({ path: field })],
          feedbackErrorCode: 'INVALID_BODY',
        },
      ]);
    }
  });
});

describe('POST /v2/feedback: error variants', () => {
  it('403 TEAM_OPTED_OUT for a team the operator opted out', async () => {
    const server = await start({ feedback: { optedOutTeams: ['team-b'] } });
    const jobId = await server.scrapeId('key-b');
    expect(await server.call('/v2/feedback', { ...valid, jobId }, 'key-b')).toEqual({
      status: 403,
      body: {
        error: 'Feedback is disabled for this team. Ask the operator to re-enable it.',
        success: false,
        details: [
          { path: [], message: 'team team-b is opted out of feedback', code: 'TEAM_OPTED_OUT' },
        ],
        feedbackErrorCode: 'TEAM_OPTED_OUT',
      },
    });
    // Other teams are not affected.
    const own = await server.scrapeId('key-a');
    expect((await server.call('/v2/feedback', { ...valid, jobId: own })).status).toBe(200);
  });

  it('404 JOB_NOT_FOUND for an unknown job, another team’s, or the wrong endpoint', async () => {
    const server = await start();
    const teamB = await server.scrapeId('key-b');
    const notFound = (endpoint: string, jobId: string) => ({
      status: 404,
      body: {
        error: `${endpoint} job not found for this team.`,
        success: false,
        details: [
          {
            path: ['jobId'],
            message: `no finished ${endpoint} job ${jobId} of this team`,
            code: 'JOB_NOT_FOUND',
          },
        ],
        feedbackErrorCode: 'JOB_NOT_FOUND',
      },
    });
    expect(await server.call('/v2/feedback', valid)).toEqual(notFound('scrape', anyJob));
    expect(await server.call('/v2/feedback', { ...valid, jobId: teamB })).toEqual(
      notFound('scrape', teamB),
    );
    expect(
      await server.call('/v2/feedback', { ...valid, jobId: teamB, endpoint: 'map' }, 'key-b'),
    ).toEqual(notFound('map', teamB));
  });

  it('404 SEARCH_NOT_FOUND for an unknown or foreign search, on both routes', async () => {
    const server = await start();
    const foreign = await server.searchJob('team-b', 1, 'completed');
    const body = { rating: 'bad', querySuggestions: 'trawl feedback refunds' };
    for (const [path, payload] of [
      [`/v2/search/${anyJob}/feedback`, body],
      [`/v2/search/${foreign}/feedback`, body],
      ['/v2/feedback', { ...body, endpoint: 'search', jobId: foreign }],
    ] as const) {
      const answer = await server.call(path, payload);
      expect(answer).toEqual({
        status: 404,
        body: {
          error: 'search job not found for this team.',
          success: false,
          details: [expect.objectContaining({ path: ['jobId'], code: 'SEARCH_NOT_FOUND' })],
          feedbackErrorCode: 'SEARCH_NOT_FOUND',
        },
      });
    }
  });

  it('409 FEEDBACK_WINDOW_EXPIRED once the window after the job has passed', async () => {
    const server = await start({ feedback: { windowMs: 1 } });
    const jobId = await server.scrapeId();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await server.call('/v2/feedback', { ...valid, jobId })).toEqual({
      status: 409,
      body: {
        error: 'Feedback must be submitted within 0.001 seconds of the job.',
        success: false,
        details: [
          {
            path: ['jobId'],
            message: expect.stringMatching(/^the job started at \d{4}-/),
            code: 'FEEDBACK_WINDOW_EXPIRED',
          },
        ],
        feedbackErrorCode: 'FEEDBACK_WINDOW_EXPIRED',
      },
    });
  });

  it('409 SEARCH_FAILED for feedback on a search that failed', async () => {
    const server = await start();
    const failed = await server.searchJob('team-a', 1, 'failed');
    expect(
      await server.call(`/v2/search/${failed}/feedback`, { rating: 'bad', querySuggestions: 'q' }),
    ).toEqual({
      status: 409,
      body: {
        error: 'Cannot submit feedback for a search job that did not succeed.',
        success: false,
        details: [
          { path: ['jobId'], message: `search ${failed} ended failed`, code: 'SEARCH_FAILED' },
        ],
        feedbackErrorCode: 'SEARCH_FAILED',
      },
    });
  });

  it('500 INTERNAL when the store fails, with nothing of the failure in the body', async () => {
    const server = await start();
    await server.store.close();
    expect(await server.call('/v2/feedback', valid)).toEqual({
      status: 500,
      body: {
        error: 'Failed to record feedback; try again later.',
        success: false,
        details: [{ path: [], message: 'the feedback could not be recorded', code: 'INTERNAL' }],
        feedbackErrorCode: 'INTERNAL',
      },
    });
  });
});

describe('POST /v2/feedback: refunds', () => {
  it('refunds a bad scrape through the ledger, which credit-usage shows', async () => {
    const server = await start();
    const jobId = await server.scrapeId();
    const answer = await server.call('/v2/feedback', {
      jobId,
      endpoint: 'scrape',
      rating: 'bad',
      issues: ['empty_markdown'],
      origin: 'api',
    });
    expect(answer).toEqual({
      status: 200,
      body: {
        success: true,
        feedbackId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/),
        creditsRefunded: 1,
        creditsRefundedToday: 1,
        dailyRefundCap: 50,
        dailyCapReached: false,
        alreadySubmitted: false,
      },
    });
    expect(
      (await server.call('/v2/team/credit-usage', undefined, 'key-a', 'GET')).body['data'],
    ).toEqual({
      remainingCredits: 2 ** 31 - 1,
      planCredits: 2 ** 31 - 1,
      billingPeriodStart: null,
      billingPeriodEnd: null,
      creditsUsed: 0,
      creditsRefunded: 1,
    });
  });

  it('gives back half for partial and nothing for good, at the configured prices, up to the cap', async () => {
    const server = await start({
      limits: { teamCredits: 200 },
      creditPrices: { scrape: 30, map: 5 },
      feedback: { dailyRefundCap: 50 },
    });
    const [first, second, third] = [
      await server.scrapeId(),
      await server.scrapeId(),
      await server.scrapeId(),
    ];
    const rate = (jobId: string, rating: string) =>
      server.call('/v2/feedback', { jobId, endpoint: 'scrape', rating, pageNumbers: [1] });
    expect((await rate(first, 'partial')).body).toMatchObject({
      creditsRefunded: 15,
      creditsRefundedToday: 15,
      dailyCapReached: false,
    });
    expect((await rate(second, 'bad')).body).toEqual({
      success: true,
      feedbackId: expect.any(String),
      creditsRefunded: 30,
      creditsRefundedToday: 45,
      dailyRefundCap: 50,
      dailyCapReached: false,
      alreadySubmitted: false,
    });
    expect((await rate(third, 'bad')).body).toEqual({
      success: true,
      feedbackId: expect.any(String),
      creditsRefunded: 5,
      creditsRefundedToday: 50,
      dailyRefundCap: 50,
      dailyCapReached: true,
      alreadySubmitted: false,
      warning:
        'Daily refund cap of 50 credits reached for this team (UTC day). Feedback was recorded; further feedback today will not refund credits.',
    });
    const map = await server.call('/v2/map', { url: `${fixture}/`, limit: 1 });
    expect(map.body['id']).toEqual(expect.any(String));
    expect(
      (
        await server.call('/v2/feedback', {
          jobId: map.body['id'],
          endpoint: 'map',
          rating: 'bad',
          note: 'missed pages',
        })
      ).body,
    ).toMatchObject({
      creditsRefunded: 0,
      dailyCapReached: true,
    });
    // 200 − 3 × 30 − 5 + 15 + 30 + 5
    expect(
      (await server.call('/v2/team/credit-usage', undefined, 'key-a', 'GET')).body['data'],
    ).toMatchObject({
      remainingCredits: 155,
      planCredits: 200,
    });
  });

  it('answers a second feedback on a job with the first feedbackId and refunds nothing', async () => {
    const server = await start();
    const jobId = await server.scrapeId();
    const first = await server.call('/v2/feedback', { ...valid, jobId });
    const second = await server.call('/v2/feedback', { ...valid, jobId, rating: 'partial' });
    expect(second).toEqual({
      status: 200,
      body: {
        success: true,
        feedbackId: first.body['feedbackId'],
        creditsRefunded: 0,
        creditsRefundedToday: 1,
        dailyRefundCap: 50,
        dailyCapReached: false,
        alreadySubmitted: true,
        warning: 'Feedback was already submitted for this job; no additional refund issued.',
      },
    });
  });

  it('gives a team out of credits (402) its credits back for a bad job', async () => {
    const server = await start({ limits: { teamCredits: 1 } });
    const jobId = await server.scrapeId();
    expect((await server.call('/v2/scrape', { url: page })).status).toBe(402);
    expect((await server.call('/v2/feedback', { ...valid, jobId })).body['creditsRefunded']).toBe(
      1,
    );
    expect((await server.call('/v2/scrape', { url: page })).status).toBe(200);
    expect((await server.call('/v2/scrape', { url: page })).status).toBe(402);
  });

  it('takes search feedback on a search job under the search cap, sharing the day’s refunds', async () => {
    const server = await start({ feedback: { dailyRefundCap: 3, searchDailyRefundCap: 10 } });
    const scrapes = [await server.scrapeId(), await server.scrapeId(), await server.scrapeId()];
    for (const jobId of scrapes) await server.call('/v2/feedback', { ...valid, jobId });
    const search = await server.searchJob('team-a', 20, 'completed');
    const answer = await server.call(`/v2/search/${search}/feedback`, {
      rating: 'bad',
      missingContent: [{ topic: 'pricing', description: 'no pricing pages were found' }],
      querySuggestions: 'trawl pricing self-hosted',
      origin: 'js-sdk@4.42.0',
    });
    expect(answer.body).toMatchObject({
      creditsRefunded: 7,
      creditsRefundedToday: 10,
      dailyRefundCap: 10,
      dailyCapReached: true,
    });
    // The scrape cap was reached by then: a scrape refunds no more.
    const another = await server.scrapeId();
    expect((await server.call('/v2/feedback', { ...valid, jobId: another })).body).toMatchObject({
      creditsRefunded: 0,
      dailyRefundCap: 3,
    });
    // The generic route on the same search is the same feedback.
    expect(
      (
        await server.call('/v2/feedback', {
          endpoint: 'search',
          jobId: search,
          rating: 'good',
          valuableSources: [{ url: 'https://a.example/' }],
        })
      ).body,
    ).toMatchObject({ alreadySubmitted: true, feedbackId: answer.body['feedbackId'] });
  });
});

describe('trawl feedback list', () => {
  it('lists the stored feedback, filtered, as lines or JSON', async () => {
    const server = await start();
    const scrape = await server.scrapeId();
    const other = await server.scrapeId('key-b');
    await server.call('/v2/feedback', { ...valid, jobId: scrape, issues: ['empty_markdown'] });
    await server.call(
      '/v2/feedback',
      { ...valid, jobId: other, rating: 'good', note: 'fine' },
      'key-b',
    );
    await server.close();
    const run = async (...args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCli(['feedback', 'list', ...args], {
        stdout: (text) => (stdout += text),
        stderr: (text) => (stderr += text),
        env: { TRAWL_DATA_DIR: server.dataDir },
      });
      return { code, stdout, stderr };
    };
    const all = await run();
    expect(all.code).toBe(0);
    expect(all.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\d{4}-\\S+\\tteam-a\\tscrape\\t${scrape}\\tbad\\trefunded=1/1\\tissues=empty_markdown note="the body was empty"$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(`\\tteam-b\\tscrape\\t${other}\\tgood\\trefunded=0/1\\tnote="fine"$`),
      ),
    ]);
    expect(all.stderr).toBe('2 feedback entries\n');
    const json = await run('--team', 'team-b', '--json');
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      expect.objectContaining({
        team: 'team-b',
        jobId: other,
        rating: 'good',
        note: 'fine',
        via: 'feedback',
      }),
    ]);
    expect((await run('--endpoint', 'map')).stdout).toBe('');
    expect((await run('--since', '1h', '--limit', '1')).stdout.trim().split('\n')).toHaveLength(1);
    expect((await run('--since', '2999-01-01')).stdout).toBe('');
    expect(await run('--since', 'yesterday')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--since takes an ISO date or time/),
    });
    expect(await run('--endpoint', 'crawl')).toMatchObject({ code: 2 });
  });
});
