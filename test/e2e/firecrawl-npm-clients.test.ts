/**
 * The official npm clients, firecrawl-mcp (over its stdio transport, as an MCP host speaks to it)
 * and firecrawl-cli, against a real `trawl serve`. They are installed outside the repository:
 *
 *   npm install --prefix /work/npm-clients firecrawl-mcp firecrawl-cli
 *   TRAWL_FIRECRAWL_NPM_DIR=/work/npm-clients npx vitest run test/e2e/firecrawl-npm-clients.test.ts
 *
 * Skipped, and says so, when TRAWL_FIRECRAWL_NPM_DIR is not set (CI installs neither).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientsModel } from '../fakes/clients-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { startFakeSearx, type FakeSearx } from '../fakes/searxng-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const dir = process.env['TRAWL_FIRECRAWL_NPM_DIR'];
const packageDir = (name: string): string => join(dir ?? '', 'node_modules', name);
/** The entry a package's `bin` names, and the version it says it is. */
function installed(name: string, bin: string): { entry: string; version: string } | undefined {
  const manifest = join(packageDir(name), 'package.json');
  if (dir === undefined || !existsSync(manifest)) return undefined;
  const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as {
    version: string;
    bin: string | Record<string, string>;
  };
  const path = typeof parsed.bin === 'string' ? parsed.bin : parsed.bin[bin];
  return path === undefined
    ? undefined
    : { entry: join(packageDir(name), path), version: parsed.version };
}
const mcp = installed('firecrawl-mcp', 'firecrawl-mcp');
const cli = installed('firecrawl-cli', 'firecrawl');
const missing =
  dir === undefined
    ? 'TRAWL_FIRECRAWL_NPM_DIR is not set'
    : mcp === undefined || cli === undefined
      ? `firecrawl-mcp and firecrawl-cli are not both installed under ${dir}`
      : undefined;
if (missing) console.warn(`skipping the firecrawl-mcp and firecrawl-cli checks: ${missing}`);
else console.warn(`firecrawl-mcp ${mcp?.version}, firecrawl-cli ${cli?.version}`);

const site = inject('fixtureUrl');
const key = 'fc-npm-clients';
const titleSchema = { type: 'object', properties: { title: { type: 'string' } } };

/** The first id in a client's output; fails the test when there is none. */
function uuidIn(text: string): string {
  const id = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(text)?.[0];
  expect(id, text).toBeDefined();
  return id ?? '';
}

/** An MCP host's side of the stdio transport: newline-delimited JSON-RPC. */
class McpHost {
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, (message: Record<string, unknown>) => void>();
  private readonly child: ChildProcessWithoutNullStreams;
  constructor(child: ChildProcessWithoutNullStreams) {
    this.child = child;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk;
      let end: number;
      while ((end = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, end).trim();
        this.buffer = this.buffer.slice(end + 1);
        if (!line.startsWith('{')) continue;
        const message = JSON.parse(line) as { id?: number } & Record<string, unknown>;
        if (message.id !== undefined) this.waiting.get(message.id)?.(message);
      }
    });
  }
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => this.waiting.set(id, resolve));
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return answer;
  }
  notify(method: string): void {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  }
  /** Calls a tool and gives its text content; a tool error fails the test with its text. */
  async call(name: string, args: Record<string, unknown>): Promise<string> {
    const message = await this.request('tools/call', { name, arguments: args });
    const result = message['result'] as
      { content: { type: string; text?: string }[]; isError?: boolean } | undefined;
    const text =
      result?.content.map((part) => part.text ?? '').join('\n') ?? JSON.stringify(message);
    expect(result?.isError ?? false, `${name}: ${text}`).toBe(false);
    return text;
  }
}

describe.skipIf(missing !== undefined)(
  'firecrawl-mcp and firecrawl-cli against trawl serve',
  () => {
    let server: ServeProcess;
    let searx: FakeSearx;
    let model: FakeOpenAi;
    let clientEnv: NodeJS.ProcessEnv;
    beforeAll(async () => {
      searx = await startFakeSearx();
      model = await startFakeOpenAi();
      model.respond = clientsModel;
      server = await startServe({
        TRAWL_API_KEYS: `team-npm:${key}`,
        TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
        TRAWL_SEARXNG_URL: searx.url,
        TRAWL_LLM_BASE_URL: model.baseUrl,
        TRAWL_LLM_MODEL: 'fake',
        TRAWL_BROWSER_EXECUTE: 'node',
      });
      clientEnv = {
        PATH: process.env['PATH'],
        HOME: mkdtempSync(join(tmpdir(), 'trawl-npm-clients-')),
        FIRECRAWL_API_URL: server.url,
        FIRECRAWL_API_KEY: key,
      };
    }, 90_000);
    afterAll(async () => {
      await server?.stop();
      await searx?.close();
      await model?.close();
    });

    describe('firecrawl-mcp', () => {
      let child: ChildProcessWithoutNullStreams;
      let host: McpHost;
      beforeAll(async () => {
        child = spawn(process.execPath, [mcp?.entry ?? ''], { env: clientEnv });
        host = new McpHost(child);
        const init = await host.request('initialize', {
          protocolVersion: '2025-03-26',
          capabilities: {},
          clientInfo: { name: 'trawl-test', version: '1' },
        });
        expect(init['result']).toBeDefined();
        host.notify('notifications/initialized');
      }, 60_000);
      afterAll(() => {
        child?.kill();
      });

      it('lists its tools, interact among them', async () => {
        const listed = await host.request('tools/list', {});
        const names = (listed['result'] as { tools: { name: string }[] }).tools.map((t) => t.name);
        expect(names).toEqual(
          expect.arrayContaining(['firecrawl_scrape', 'firecrawl_map', 'firecrawl_interact']),
        );
      });

      it('scrape (markdown and json), map and search', async () => {
        const scraped = await host.call('firecrawl_scrape', {
          url: `${site}/docs/configuration.html`,
          formats: ['markdown'],
        });
        expect(scraped).toContain('Configuration reference');
        const json = await host.call('firecrawl_scrape', {
          url: `${site}/docs/configuration.html`,
          formats: ['json'],
          jsonOptions: { prompt: 'the title', schema: titleSchema },
        });
        expect(json).toContain('Fake title');
        const mapped = await host.call('firecrawl_map', { url: `${site}/docs/`, limit: 10 });
        expect(mapped).toContain(`${site}/docs/install.html`);
        // With a key it names the hosted provider catalogue beside the web; the web answers.
        const found = await host.call('firecrawl_search', { query: 'lighthouse', limit: 2 });
        expect(found).toContain('lighthouse');
      }, 120_000);

      it('crawl and its status', async () => {
        const started = await host.call('firecrawl_crawl', { url: `${site}/docs/`, limit: 2 });
        const id = uuidIn(started);
        let status = '';
        for (let tries = 0; tries < 60 && !status.includes('"completed"'); tries++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          status = await host.call('firecrawl_check_crawl_status', { id });
        }
        expect(status).toContain('"completed"');
        expect(status).toContain('Quiver');
      }, 120_000);

      it('agent and its status', async () => {
        const started = await host.call('firecrawl_agent', {
          prompt: 'List the lighthouses. Finish at once.',
          urls: [`${site}/`],
        });
        const id = uuidIn(started);
        let status = '';
        for (let tries = 0; tries < 60 && !status.includes('"completed"'); tries++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          status = await host.call('firecrawl_agent_status', { id });
        }
        expect(status).toContain('Harbour light');
      }, 120_000);

      it('interact from a url, again by its scrapeId (prompt mode), then stop', async () => {
        const opened = await host.call('firecrawl_interact', {
          url: `${site}/browser/actions.html`,
          code: 'return await page.title()',
          language: 'node',
        });
        expect(opened).toContain('Harbour booking form');
        const scrapeId = (JSON.parse(opened) as { scrapeId: string }).scrapeId;
        const prompted = await host.call('firecrawl_interact', {
          scrapeId,
          prompt: 'Type Seagull as the boat name',
        });
        expect(prompted).toContain('Typed the boat name.');
        expect(prompted).toContain('Seagull');
        const stopped = await host.call('firecrawl_interact_stop', { scrapeId });
        expect(stopped).toContain('destroyed');
      }, 120_000);

      it('parse a local file', async () => {
        const file = join(mkdtempSync(join(tmpdir(), 'trawl-mcp-parse-')), 'note.html');
        writeFileSync(file, '<h1>Parsed by MCP</h1><p>Harbour text.</p>');
        const parsed = await host.call('firecrawl_parse', { filePath: file });
        expect(parsed).toContain('Parsed by MCP');
      }, 60_000);

      it('monitors: create, list, get, update, run, checks, check, delete', async () => {
        const created = await host.call('firecrawl_monitor_create', {
          page: `${site}/docs/install.html`,
          goal: 'Tell me when the install steps change',
          name: 'mcp docs',
          scheduleText: 'every 30 minutes',
        });
        const id = uuidIn(created);
        expect(await host.call('firecrawl_monitor_list', {})).toContain(id);
        expect(await host.call('firecrawl_monitor_get', { id })).toContain('mcp docs');
        const updated = await host.call('firecrawl_monitor_update', {
          id,
          body: { name: 'mcp docs 2' },
        });
        expect(updated).toContain('mcp docs 2');
        const run = await host.call('firecrawl_monitor_run', { id });
        const checkId = uuidIn(run.replace(id, ''));
        let check = '';
        for (let tries = 0; tries < 60 && !/"status":\s*"completed"/.test(check); tries++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          check = await host.call('firecrawl_monitor_check', { id, checkId });
        }
        expect(check).toContain(`${site}/docs/install.html`);
        expect(await host.call('firecrawl_monitor_checks', { id })).toContain(checkId);
        await host.call('firecrawl_monitor_delete', { id });
        const gone = await host.request('tools/call', {
          name: 'firecrawl_monitor_get',
          arguments: { id },
        });
        expect(JSON.stringify(gone)).toMatch(/404|not found/i);
      }, 120_000);

      it('credit usage', async () => {
        expect(await host.call('firecrawl_credit_usage', {})).toMatch(
          /remainingCredits|remaining_credits/,
        );
      });

      it('the hosted research index answers 501', async () => {
        const answer = await host.request('tools/call', {
          name: 'firecrawl_research_search_papers',
          arguments: { query: 'lighthouse optics' },
        });
        // The MCP server passes on the status only: Trawl's 501 NOT_CONFIGURED.
        expect(JSON.stringify(answer)).toMatch(/status code 501/);
      });
    });

    describe('firecrawl-cli', () => {
      let cwd: string;
      /** Runs one command; fails the test with its output when it exits non-zero. */
      const firecrawl = async (...args: string[]): Promise<string> => {
        const child = spawn(process.execPath, [cli?.entry ?? '', ...args], { cwd, env: clientEnv });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(code, `firecrawl ${args.join(' ')}: ${output}`).toBe(0);
        return output;
      };
      beforeAll(() => {
        cwd = mkdtempSync(join(tmpdir(), 'trawl-cli-'));
      });

      it('scrape, map, search, crawl and credit-usage', async () => {
        expect(await firecrawl('scrape', `${site}/docs/configuration.html`)).toContain(
          'Environment variables win.',
        );
        const mapped = await firecrawl('map', `${site}/docs/`, '--limit', '10');
        expect(mapped).toContain(`${site}/docs/install.html`);
        expect(await firecrawl('search', 'lighthouse', '--limit', '2')).toContain('lighthouse');
        const crawled = await firecrawl(
          'crawl',
          `${site}/docs/`,
          '--limit',
          '2',
          '--wait',
          '--poll-interval',
          '1',
        );
        expect(crawled).toContain('"status":"completed"');
        expect(crawled).toContain('Quiver');
        expect(await firecrawl('credit-usage')).toContain('Remaining Credits');
      }, 120_000);

      it('interact with the last scrape in code and prompt mode, then stop', async () => {
        await firecrawl('scrape', `${site}/browser/actions.html`);
        expect(await firecrawl('interact', '-c', 'return await page.title()')).toContain(
          'Harbour booking form',
        );
        const prompted = await firecrawl('interact', '-p', 'Type Seagull as the boat name');
        expect(prompted).toContain('Seagull');
        expect(await firecrawl('interact', 'stop')).toContain('Session stopped');
      }, 120_000);

      it('parse and agent', async () => {
        writeFileSync(join(cwd, 'note.html'), '<h1>Parsed by the CLI</h1><p>Harbour text.</p>');
        expect(await firecrawl('parse', 'note.html')).toContain('# Parsed by the CLI');
        const done = await firecrawl(
          'agent',
          'List the lighthouses. Finish at once.',
          '--urls',
          `${site}/`,
          '--wait',
          '--poll-interval',
          '1',
          '--json',
        );
        expect(done).toContain('Harbour light');
      }, 120_000);

      it('monitor create, get, run, checks, check, delete', async () => {
        const created = await firecrawl(
          'monitor',
          'create',
          '--name',
          'cli docs',
          '--cron',
          '0 * * * *',
          '--page',
          `${site}/docs/install.html`,
        );
        const id = uuidIn(created);
        expect(await firecrawl('monitor', 'list')).toContain(id);
        expect(await firecrawl('monitor', 'get', id)).toContain('cli docs');
        const checkId = uuidIn((await firecrawl('monitor', 'run', id)).replaceAll(id, ''));
        let check = '';
        for (let tries = 0; tries < 60 && !check.includes('"status":"completed"'); tries++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          check = await firecrawl('monitor', 'check', id, checkId);
        }
        expect(check).toContain(`${site}/docs/install.html`);
        expect(await firecrawl('monitor', 'checks', id)).toContain(checkId);
        await firecrawl('monitor', 'delete', id);
        expect(await firecrawl('monitor', 'list')).not.toContain(id);
      }, 120_000);
    });
  },
);
