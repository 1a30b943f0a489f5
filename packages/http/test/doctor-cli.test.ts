/**
 * `trawl doctor` on this machine: each part reported as it really is, and a part made missing on
 * purpose (a configured Chromium or LibreOffice path that is wrong, a Redis nobody listens on)
 * reported as failed with its fix and exit status 1.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '@trawl/http';

async function doctor(env: Record<string, string>) {
  let stdout = '';
  const code = await runCli(['doctor', '--json'], {
    stdout: (text) => (stdout += text),
    stderr: () => undefined,
    env: { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-doctor-')), ...env },
  });
  const findings = stdout
    .trim()
    .split('\n')
    .map(
      (line) => JSON.parse(line) as { part: string; state: string; detail: string; fix?: string },
    );
  return { code, byPart: new Map(findings.map((finding) => [finding.part, finding])) };
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('trawl doctor', () => {
  it('reports what this machine has, and nothing configured as failed', async () => {
    const { code, byPart } = await doctor({});
    expect(byPart.get('node')).toMatchObject({
      state: 'ok',
      detail: `Node.js ${process.versions.node}`,
    });
    expect(byPart.get('store')).toMatchObject({ state: 'ok' });
    expect(byPart.get('ocr')).toMatchObject({ state: 'ok' });
    expect(byPart.get('redis')).toMatchObject({ state: 'off' });
    expect(byPart.get('llm')).toMatchObject({ state: 'off' });
    expect(byPart.get('keys')).toMatchObject({ state: 'off' });
    // Chromium and LibreOffice are there or not, as the machine has them: only a wrong setting fails.
    for (const part of ['chromium', 'libreoffice'])
      expect(['ok', 'missing'], part).toContain(byPart.get(part)?.state);
    expect(code).toBe(0);
  });

  it('fails a part whose setting is wrong, with the fix, and exits 1', async () => {
    const port = await closedPort();
    const { code, byPart } = await doctor({
      TRAWL_CHROMIUM_PATH: '/nonexistent/chromium',
      TRAWL_REDIS_URL: `redis://127.0.0.1:${port}`,
    });
    expect(byPart.get('chromium')).toMatchObject({
      state: 'failed',
      detail: expect.stringContaining(
        'TRAWL_CHROMIUM_PATH (chromiumPath) is /nonexistent/chromium',
      ) as unknown,
      fix: expect.stringContaining('apt-get install chromium') as unknown,
    });
    expect(byPart.get('redis')).toMatchObject({
      state: 'failed',
      fix: 'check TRAWL_REDIS_URL and that Redis runs',
    });
    expect(code).toBe(1);
  });

  it('reports a reachable Redis as ok', async () => {
    const { byPart } = await doctor({ TRAWL_REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(byPart.get('redis')).toMatchObject({ state: 'ok' });
  });
});
