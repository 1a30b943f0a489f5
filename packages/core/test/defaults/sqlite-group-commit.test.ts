/**
 * SqliteStore commits writes in groups: these tests hold it to what that must not
 * change. A write whose promise resolved is on disk even when the process is killed with
 * SIGKILL right after; a read sees the writes made before it, committed or not; and concurrent
 * writes share commits.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '@trawl/core';

const directory = mkdtempSync(join(tmpdir(), 'trawl-group-commit-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** Runs the writer fixture until it reports a resolved write, then kills it with SIGKILL. */
async function resolvedThenKilled(path: string, count: number): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      '--experimental-strip-types',
      join(import.meta.dirname, 'fixtures/sqlite-writer.ts'),
      path,
      String(count),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  try {
    const lines = createInterface({ input: child.stdout });
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the writer reported nothing in 30 s')),
        30_000,
      );
      lines.once('line', (text) => {
        clearTimeout(timer);
        resolve(text);
      });
      child.once('exit', (code) => reject(new Error(`the writer exited with ${code}`)));
    });
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    return line.replace('resolved ', '');
  } finally {
    child.kill('SIGKILL');
  }
}

describe('SqliteStore group commit', () => {
  it('keeps a write whose promise resolved when the process is killed with SIGKILL right after', async () => {
    const path = join(directory, 'killed.db');
    const key = await resolvedThenKilled(path, 200);
    const store = new SqliteStore({ path });
    try {
      expect(await store.get('durable', key)).toMatchObject({ index: Number(key.slice(1)) });
    } finally {
      await store.close();
    }
  });

  it('reads its own writes before they are committed', async () => {
    const store = new SqliteStore({ path: join(directory, 'read-own.db') });
    try {
      const written = store.set('ns', 'a', { value: 1 });
      // Not awaited: the write is in the open group, not committed yet.
      expect(await store.get('ns', 'a')).toEqual({ value: 1 });
      expect(await store.list('ns')).toEqual([{ key: 'a', value: { value: 1 } }]);
      const deleted = store.delete('ns', 'a');
      expect(await store.get('ns', 'a')).toBeUndefined();
      await Promise.all([written, deleted]);
    } finally {
      await store.close();
    }
  });

  it('commits concurrent writes together, visible to another connection once resolved', async () => {
    const path = join(directory, 'shared.db');
    const store = new SqliteStore({ path });
    const { DatabaseSync } = await import('node:sqlite');
    const other = new DatabaseSync(path);
    try {
      const writes = Array.from({ length: 50 }, (_, index) => store.set('ns', `k${index}`, index));
      // Nothing is committed before the turn ends: another connection sees none of them yet.
      const count = () =>
        (
          other.prepare("SELECT count(*) AS n FROM kv WHERE namespace = 'ns'").get() as {
            n: number;
          }
        ).n;
      expect(count()).toBe(0);
      await Promise.all(writes);
      expect(count()).toBe(50);
    } finally {
      other.close();
      await store.close();
    }
  });

  it('fails the writes started after a failed one in the same turn, so none lands without it', async () => {
    const store = new SqliteStore({ path: join(directory, 'ordered.db') });
    try {
      expect(store.capabilities.orderedWrites).toBe(true);
      const kept = store.set('ns', 'before', 1);
      // A BigInt cannot be stored as JSON: this write fails when it runs.
      const failed = store.set('ns', 'marker', { big: 1n });
      const dependent = store.set('ns', 'after', 2);
      await expect(failed).rejects.toThrow();
      await expect(dependent).rejects.toThrow();
      await kept;
      expect(await store.get('ns', 'before')).toBe(1);
      expect(await store.get('ns', 'after')).toBeUndefined();
      // The next turn of the event loop writes again.
      await new Promise((resolve) => setImmediate(resolve));
      await store.set('ns', 'after', 3);
      expect(await store.get('ns', 'after')).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('commits the open group when the store closes', async () => {
    const path = join(directory, 'closed.db');
    const store = new SqliteStore({ path });
    const write = store.set('ns', 'last', 'kept');
    await store.close();
    await write;
    const again = new SqliteStore({ path });
    try {
      expect(await again.get('ns', 'last')).toBe('kept');
    } finally {
      await again.close();
    }
  });
});
