/**
 * SqliteStore's checkpoint thread: the log reaches the database file while the
 * writer's own threshold (40 MB) is far off, the thread's connection closes last so no log is
 * left behind, and awaiting close() ends a process that has nothing else to do.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '@trawl/core';

const directory = mkdtempSync(join(tmpdir(), 'trawl-checkpointer-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const value = 'x'.repeat(512 * 1024);

async function writeMegabytes(store: SqliteStore, halves: number): Promise<void> {
  // One commit each: the thread is asked after a commit.
  for (let index = 0; index < halves; index++) await store.set('big', `k${index}`, value);
}

async function eventually(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('SqliteStore checkpoint thread', () => {
  it('copies the log into the database long before the writer would', async () => {
    const path = join(directory, 'copied.db');
    const store = new SqliteStore({ path });
    try {
      await writeMegabytes(store, 24);
      // 12 MB written, under a third of the writer's threshold: only the thread copies them.
      expect(await eventually(() => statSync(path).size >= 8 * 1024 * 1024, 10_000)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('closes the file last: no log is left and every value reads back', async () => {
    const path = join(directory, 'closed.db');
    const store = new SqliteStore({ path });
    await writeMegabytes(store, 16);
    await store.close();
    await store.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = new SqliteStore({ path });
    try {
      const entries = await reopened.list<string>('big');
      expect(entries).toHaveLength(16);
      expect(entries.every((entry) => entry.value === value)).toBe(true);
    } finally {
      await reopened.close();
    }
  });

  it('lets a process that awaits close() with nothing else to do finish it', async () => {
    const path = join(directory, 'process.db');
    const child = spawn(
      process.execPath,
      ['--experimental-strip-types', join(import.meta.dirname, 'fixtures/sqlite-closer.ts'), path],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += String(chunk)));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, output }).toEqual({ code: 0, output: 'closed\n' });
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
