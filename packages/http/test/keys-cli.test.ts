/** `trawl keys`: create, list and revoke the stored keys of a data folder. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '@trawl/http';

const env = { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-keys-cli-')) };

async function keys(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['keys', ...args], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
  });
  return { code, stdout, stderr };
}

describe('trawl keys', () => {
  it('revokes a key by the prefix the list shows, and only that key', async () => {
    const ops = (await keys('create', '--team', 'ops')).stdout.trim();
    const qa = (await keys('create', '--team', 'qa')).stdout.trim();
    expect((await keys('list')).stdout.split('\n').filter(Boolean)).toHaveLength(2);

    const revoked = await keys('revoke', ops.slice(0, 8));
    expect(revoked).toMatchObject({
      code: 0,
      stderr: `Key ${ops.slice(0, 8)}… of team 'ops' revoked.\n`,
    });
    const left = (await keys('list')).stdout;
    expect(left).toContain(`qa\t${qa.slice(0, 8)}…`);
    expect(left).not.toContain('ops');

    // The whole key works as well as its prefix.
    expect((await keys('revoke', qa)).code).toBe(0);
    expect((await keys('list')).stdout).toBe('');
  });

  it('says when no key matches, and what to run to see them', async () => {
    const result = await keys('revoke', 'fc-nothing');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no stored key starts with 'fc-nothing'; see 'trawl keys list'/);
    expect((await keys('revoke')).code).toBe(2);
  });
});
