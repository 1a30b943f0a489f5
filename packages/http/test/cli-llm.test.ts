/**
 * The CLI's LLM commands against the fake OpenAI-compatible server: `trawl scrape`
 * with --json-schema / --prompt, --summary and --question, and `trawl extract`; without a model
 * they fail with one line naming TRAWL_LLM_MODEL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '@trawl/http';
import { startFakeOpenAi, type FakeOpenAi } from '../../../test/fakes/openai-server.ts';

const site = inject('fixtureUrl');
const dir = mkdtempSync(join(tmpdir(), 'trawl-cli-llm-'));
let fake: FakeOpenAi;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  fake.respond = (request) => {
    switch (request.response_format?.json_schema?.name) {
      case 'summary':
        return { content: '{"summary":"About timetables."}' };
      case 'answer':
        return { content: '{"answer":"Three."}' };
      default:
        return { content: '{"title":"How timetables are planned"}' };
    }
  };
});
afterAll(() => fake.close());

async function run(args: string[], withLlm = true) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: {
      TRAWL_DATA_DIR: dir,
      ...(withLlm ? { TRAWL_LLM_BASE_URL: fake.baseUrl, TRAWL_LLM_MODEL: 'fake' } : {}),
    },
  });
  return { code, stdout, stderr };
}

describe('trawl scrape with LLM flags', () => {
  it('prints the JSON a schema file asks for, the summary and the answer', async () => {
    const schema = join(dir, 'schema.json');
    writeFileSync(
      schema,
      JSON.stringify({ type: 'object', properties: { title: { type: 'string' } } }),
    );
    const result = await run([
      'scrape',
      `${site}/articles/plain.html`,
      '--json-schema',
      schema,
      '--summary',
      '--question',
      'How many constraints?',
    ]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      '{\n  "title": "How timetables are planned"\n}\n\nAbout timetables.\n\nThree.\n',
    );
  });

  it('fails with one line naming TRAWL_LLM_MODEL when no model is configured', async () => {
    const result = await run(['scrape', `${site}/articles/plain.html`, '--summary'], false);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/NOT_CONFIGURED.*TRAWL_LLM_MODEL/);
  });
});

describe('trawl extract', () => {
  it('prints one merged answer with its sources', async () => {
    const result = await run([
      'extract',
      `${site}/articles/plain.html`,
      '--prompt',
      'the title',
      '--show-sources',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      data: { title: 'How timetables are planned' },
      sources: { title: [`${site}/articles/plain.html`] },
    });
  });
});
