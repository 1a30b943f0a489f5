/**
 * The official Python SDK (firecrawl-py) and LangChain's FireCrawlLoader against a real
 * `trawl serve`: runs the unittest suites of test/python-sdk when TRAWL_FIRECRAWL_PY_SRC points at
 * the SDK's source (the folder holding its `firecrawl` package, e.g. apps/python-sdk of
 * github.com/firecrawl/firecrawl) and TRAWL_FIRECRAWL_PY_PYTHON (default python3) has its
 * dependencies; test/python-sdk/setup.sh makes that Python. The LangChain suite runs when that
 * Python also imports langchain_community. Skipped, and says so, otherwise: the SDK is not in the
 * package index CI reaches, and its code is never committed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientsModel } from '../fakes/clients-model.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/openai-server.ts';
import { startFakeSearx, type FakeSearx } from '../fakes/searxng-server.ts';
import { startServe, type ServeProcess } from './serve-process.ts';

const source = process.env['TRAWL_FIRECRAWL_PY_SRC'];
const python = process.env['TRAWL_FIRECRAWL_PY_PYTHON'] ?? 'python3';
const missing =
  source === undefined
    ? 'TRAWL_FIRECRAWL_PY_SRC is not set'
    : existsSync(join(source, 'firecrawl', '__init__.py'))
      ? undefined
      : `no firecrawl package in ${source}`;
if (missing) console.warn(`skipping the firecrawl-py suite: ${missing}`);
const noLangchain =
  missing ??
  (spawnSync(python, ['-c', 'import langchain_community'], { stdio: 'ignore' }).status === 0
    ? undefined
    : `${python} cannot import langchain_community`);
if (noLangchain && !missing) console.warn(`skipping the LangChain loader suite: ${noLangchain}`);

const site = inject('fixtureUrl');
const key = 'fc-python-sdk';

describe.skipIf(missing !== undefined)('firecrawl-py against trawl serve', () => {
  let server: ServeProcess;
  let searx: FakeSearx;
  let model: FakeOpenAi;
  beforeAll(async () => {
    searx = await startFakeSearx();
    model = await startFakeOpenAi();
    model.respond = clientsModel;
    server = await startServe({
      TRAWL_API_KEYS: `team-py:${key}`,
      TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true',
      TRAWL_SEARXNG_URL: searx.url,
      TRAWL_LLM_BASE_URL: model.baseUrl,
      TRAWL_LLM_MODEL: 'fake',
      TRAWL_BROWSER_EXECUTE: 'node',
    });
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await searx?.close();
    await model?.close();
  });

  /** Runs one unittest module of test/python-sdk; fails with its output, prints its skips. */
  async function runSuite(module: string): Promise<void> {
    const child = spawn(python, ['-m', 'unittest', '-v', module], {
      cwd: join(import.meta.dirname, '../python-sdk'),
      env: {
        ...process.env,
        PYTHONPATH: source,
        PYTHONDONTWRITEBYTECODE: '1',
        TRAWL_URL: server.url,
        TRAWL_KEY: key,
        FIXTURE_URL: site,
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) console.error(output);
    // The count run, and each skip (a method the SDK under test lacks), said even on success.
    for (const line of output.split('\n')) {
      if (/^(Ran \d+ tests|OK|FAILED)|\bskipped\b/.test(line)) console.warn(`${module}: ${line}`);
    }
    expect(code, output.slice(-4000)).toBe(0);
  }

  it('passes the firecrawl-py suite', () => runSuite('test_firecrawl_py'), 600_000);

  it.skipIf(noLangchain !== undefined)(
    'passes the LangChain FireCrawlLoader suite',
    () => runSuite('test_langchain_loader'),
    300_000,
  );
});
