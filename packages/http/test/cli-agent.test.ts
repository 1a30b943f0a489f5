/**
 * `trawl agent`: the answer as JSON on stdout and a line per tool call on stderr (a
 * redrawn line on a terminal); its flags reach the run (`--max-credits`, `--url` with
 * `--strict`, `--schema`); usage mistakes exit 2 naming the flag; without a model it stops at
 * once naming the variables; TRAWL_LLM_TOOL_CALLS=json-action offers the tools as a prompt.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { runCli } from '@trawl/http';
import {
  asJsonAction,
  productsSchema,
  resultsOf,
  shopPages,
  shopper,
  use,
} from '../../../test/fakes/agent-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../../../test/fakes/openai-server.ts';

const site = inject('fixtureUrl');
let fake: FakeOpenAi;
let dataDir: string;
let schemaFile: string;
let llmEnv: Record<string, string>;

async function run(args: string[], env: Record<string, string> = llmEnv, tty = false) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { TRAWL_DATA_DIR: dataDir, ...env },
    stderrIsTTY: tty,
  });
  return { code, stdout, stderr };
}

beforeAll(async () => {
  fake = await startFakeOpenAi();
  dataDir = mkdtempSync(join(tmpdir(), 'trawl-cli-agent-'));
  schemaFile = join(dataDir, 'products.json');
  writeFileSync(schemaFile, JSON.stringify(productsSchema));
  llmEnv = { TRAWL_LLM_BASE_URL: fake.baseUrl, TRAWL_LLM_MODEL: 'fake-agent' };
  // The data folder's index holds the shop, as after `trawl scrape`.
  for (const page of shopPages) await run(['scrape', `${site}/shop/${page}.html`, '-q'], {});
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.respond = shopper;
});
afterAll(() => fake.close());

describe('trawl agent', () => {
  it('prints the answer on stdout and a line per tool call on stderr', async () => {
    const result = await run(['agent', 'The three products', '--schema', schemaFile]);
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout) as { products: { name: string }[] };
    expect(answer.products).toHaveLength(3);
    const lines = result.stderr.trim().split('\n');
    expect(lines.filter((line) => / scrape: /.test(line))).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^step 1 · [\d,]+ tokens · \d+ credits · search: 'trail running shoe': \d result/,
    );
    expect(lines.at(-1)).toMatch(/^completed: 4 steps, 3 pages, \d+ tokens, \d+ credits$/);
  });

  it('redraws one line on a terminal', async () => {
    const result = await run(['agent', 'The three products', '--schema', schemaFile], llmEnv, true);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('\r\x1b[2K');
    expect(result.stderr).toMatch(/scrape http:\/\/127\.0\.0\.1:\d+\/shop\//);
  });

  it('passes --max-credits, --url with --strict and --effort to the run', async () => {
    const poor = await run(['agent', 'The three products', '--max-credits', '2']);
    expect(poor.code).toBe(1);
    expect(poor.stderr).toContain('maxCredits (2) cannot pay for one model call');
    expect(fake.requests).toHaveLength(0);
    fake.respond = (request) =>
      resultsOf(request).length === 0
        ? use('scrape', { url: `${site}/docs/guide.html` })
        : use('finish', { answer: {} });
    const strict = await run(['agent', 'Docs', '--url', `${site}/shop/`, '--strict', '-q']);
    expect(strict.code).toBe(0);
    expect(resultsOf(fake.requests[1]!.body)[0]!.content).toContain('outside the URLs');
    fake.respond = () => use('search', { query: 'x' });
    const low = await run(['agent', 'Anything', '--effort', 'low', '-q']);
    expect(low.code).toBe(1);
    expect(low.stderr).toContain('step budget (8 steps, effort low)');
  });

  it('offers the tools as a JSON-action prompt with TRAWL_LLM_TOOL_CALLS=json-action', async () => {
    fake.respond = (request) => asJsonAction(shopper(request));
    const result = await run(['agent', 'The shoe', '--schema', schemaFile, '-q'], {
      ...llmEnv,
      TRAWL_LLM_TOOL_CALLS: 'json-action',
    });
    expect(result.code).toBe(0);
    expect(fake.requests.every((request) => request.body.tools === undefined)).toBe(true);
    expect(fake.requests[0]!.body.messages[0]!.content).toContain('"tool"');
    expect((JSON.parse(result.stdout) as { products: unknown[] }).products).toHaveLength(1);
  });

  it('refuses usage mistakes with exit 2, and a missing model at once naming the variables', async () => {
    expect((await run(['agent'])).stderr).toBe(
      "trawl agent: give a prompt; see 'trawl agent --help'\n",
    );
    const effort = await run(['agent', 'x', '--effort', 'max']);
    expect(effort.code).toBe(2);
    expect(effort.stderr).toContain('--effort');
    const credits = await run(['agent', 'x', '--max-credits', 'lots']);
    expect(credits.code).toBe(2);
    expect(credits.stderr).toContain('--max-credits');
    const unknown = await run(['agent', 'x', '--max-credit', '3']);
    expect(unknown.stderr).toContain("did you mean '--max-credits'");
    const bare = await run(['agent', 'x'], {});
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('NOT_CONFIGURED');
    expect(bare.stderr).toContain('llmBaseUrl (TRAWL_LLM_BASE_URL) and llmModel (TRAWL_LLM_MODEL)');
    expect(fake.requests).toHaveLength(0);
  });
});
