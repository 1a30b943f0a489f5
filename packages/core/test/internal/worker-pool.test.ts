/**
 * The worker pool parse() converts files in (internal/worker-pool.ts), on real worker threads:
 * work that never yields is stopped at its deadline, a heap overflow kills only its worker, and
 * a worker's TrawlError comes back with its code.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { TrawlError, ValidationError } from '../../src/errors.js';
import { WorkerPool, WorkerUnavailableError } from '../../src/internal/worker-pool.js';

const pool = new WorkerPool({
  module: new URL('./fixtures/test-worker.ts', import.meta.url),
  what: 'The test task',
  maxHeapMb: 64,
  maxRssGrowthMb: 256,
  idleMs: 1000,
});
afterAll(() => pool.close());

describe('WorkerPool', () => {
  it('runs a task in a worker thread and answers with its value', async () => {
    expect(await pool.usable()).toBe(true);
    await expect(pool.run({ do: 'echo', value: 'abc' }, Date.now() + 10_000)).resolves.toBe('ABC');
  });

  it('stops synchronous work that never yields at the deadline with SCRAPE_TIMEOUT', async () => {
    const error = await pool.run({ do: 'spin' }, Date.now() + 500).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TrawlError);
    expect(error).toMatchObject({ code: 'SCRAPE_TIMEOUT', message: /timed out and was stopped/ });
    // The pool goes on with a fresh worker.
    await expect(pool.run({ do: 'echo', value: 'x' }, Date.now() + 10_000)).resolves.toBe('X');
  });

  it('refuses work that outgrows its heap with CONTENT_TOO_LARGE, and the process lives on', async () => {
    const error = await pool.run({ do: 'grow' }, Date.now() + 60_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONTENT_TOO_LARGE', message: /more than 64 MB/ });
    await expect(pool.run({ do: 'echo', value: 'y' }, Date.now() + 10_000)).resolves.toBe('Y');
  });

  it('stops a task whose memory outside the heap grows past the allowance', async () => {
    const error = await pool.run({ do: 'buffers' }, Date.now() + 60_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CONTENT_TOO_LARGE', message: /more than 256 MB/ });
    await expect(pool.run({ do: 'echo', value: 'w' }, Date.now() + 10_000)).resolves.toBe('W');
  });

  it('allows a fifth of the growth once the process is past its RSS ceiling', async () => {
    const crowded = new WorkerPool({
      module: new URL('./fixtures/test-worker.ts', import.meta.url),
      what: 'The test task',
      maxHeapMb: 64,
      maxRssGrowthMb: 1000,
      // Every process is past 1 MB: the task may add 200 MB, not 1000.
      rssCeilingMb: 1,
    });
    try {
      const error = await crowded
        .run({ do: 'buffers' }, Date.now() + 60_000)
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'CONTENT_TOO_LARGE', message: /more than 200 MB/ });
    } finally {
      await crowded.close();
    }
  });

  it("rebuilds a worker's TrawlError with its class, code, message and details", async () => {
    const error = await pool.run({ do: 'refuse' }, Date.now() + 10_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      name: 'ValidationError',
      message: 'The file is damaged',
      details: { at: 3 },
    });
  });

  it('says when no worker can run the module, so callers fall back to their own thread', async () => {
    const missing = new WorkerPool({
      module: new URL('./fixtures/no-such-worker.ts', import.meta.url),
      what: 'The missing task',
      maxHeapMb: 64,
    });
    try {
      expect(await missing.usable()).toBe(false);
      await expect(
        missing.run({ do: 'echo', value: 'z' }, Date.now() + 5000),
      ).rejects.toBeInstanceOf(WorkerUnavailableError);
    } finally {
      await missing.close();
    }
  });
});
