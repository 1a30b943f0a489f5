import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { chromiumMissing } from './chromium.ts';

const site = inject('fixtureUrl');

/** Runs a library script in a fresh Node process; resolves with its exit code and output. */
function runScript(source: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=development', '--input-type=module', '--eval', source],
    { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

describe.skipIf(chromiumMissing)('closeBrowsers', () => {
  it('lets a script that rendered a page end as soon as it is done', async () => {
    // browserIdleMs of an hour: only closeBrowsers() can let this process end within the test's bound.
    const { code, output } = await runScript(`
      import { closeBrowsers, resolveEngineConfig, scrape } from '@trawl/core';
      const config = resolveEngineConfig({ browserIdleMs: 3_600_000 });
      const doc = await scrape(${JSON.stringify(`${site}/app-shell.html`)}, {}, { config });
      console.log(doc.markdown.includes('RENDERED_BY_JAVASCRIPT') ? 'rendered' : 'not rendered');
      await closeBrowsers();
    `);
    expect(output).toContain('rendered');
    expect(output).not.toContain('not rendered');
    expect(code).toBe(0);
  }, 30_000);
});
