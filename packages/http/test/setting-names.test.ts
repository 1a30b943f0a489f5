/** The CLI and the server add the variable to a core message that names an engine option. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '@trawl/http';
import { withSettingNames } from '../src/setting-names.js';

describe('setting names at the edges', () => {
  it('adds the variable after the option, once, and leaves a message that has it alone', () => {
    expect(
      withSettingNames('the floor is monitorMinIntervalMinutes; monitorMinIntervalMinutes'),
    ).toBe(
      'the floor is monitorMinIntervalMinutes (TRAWL_MONITOR_MIN_INTERVAL_MINUTES); monitorMinIntervalMinutes',
    );
    expect(withSettingNames('TRAWL_SOFFICE_PATH (sofficePath) is /x')).toBe(
      'TRAWL_SOFFICE_PATH (sofficePath) is /x',
    );
    expect(withSettingNames('a maxBodyBytesish word')).toBe('a maxBodyBytesish word');
  });

  it('names the variable of the monitor interval floor in the CLI', async () => {
    let stderr = '';
    const code = await runCli(
      ['monitor', 'create', '--name', 'x', '--schedule', '* * * * *', 'https://example.com/'],
      {
        stdout: () => undefined,
        stderr: (text) => (stderr += text),
        env: { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-setting-names-')) },
      },
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain('monitorMinIntervalMinutes (TRAWL_MONITOR_MIN_INTERVAL_MINUTES)');
  });

  it('names the values a boolean variable takes', async () => {
    let stderr = '';
    await runCli(['scrape', 'https://example.com/'], {
      stdout: () => undefined,
      stderr: (text) => (stderr += text),
      env: { TRAWL_ALLOW_PRIVATE_ADDRESSES: 'maybe' },
    });
    expect(stderr).toMatch(
      /TRAWL_ALLOW_PRIVATE_ADDRESSES: "maybe" — give true or false \(or 1 or 0\)/,
    );
  });
});

describe('trawl serve on a port in use', () => {
  it('says the port is taken and how to choose another', async () => {
    const { createServer } = await import('node:net');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    let stderr = '';
    try {
      const code = await runCli(['serve', '--port', String(port)], {
        stdout: () => undefined,
        stderr: (text) => (stderr += text),
        env: { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-port-')) },
      });
      expect(code).toBe(2);
      expect(stderr).toContain(
        `port ${port} on 127.0.0.1 is in use: stop what listens there, or choose another port with --port or PORT`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
