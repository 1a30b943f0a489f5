/**
 * A job command waits for stdout's backlog before printing the next page: a reader slower than
 * the crawl holds the printing back, and the documents wait in the store, not in memory.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli, type CliIo } from '@trawl/http';

const site = inject('fixtureUrl');
const holdMs = 1500;

/** An io whose stdout reports a backlog after the first document, for `holdMs`. */
function heldIo(signal?: AbortSignal) {
  const lines: string[] = [];
  const linesWhenReleased: number[] = [];
  let held = false;
  const io: CliIo = {
    stdout: (text) => lines.push(text),
    stderr: () => undefined,
    env: { TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-backlog-')) },
    ...(signal ? { signal } : {}),
    stdoutBacklog: () => {
      if (held) return undefined;
      held = true;
      return new Promise((resolve) =>
        setTimeout(() => {
          linesWhenReleased.push(lines.length);
          resolve();
        }, holdMs),
      );
    },
  };
  return { io, lines, linesWhenReleased };
}

describe("stdout's backlog", () => {
  it('holds the next document back until stdout has drained, then prints every page', async () => {
    const { io, lines, linesWhenReleased } = heldIo();
    const code = await runCli(['crawl', `${site}/`, '--limit', '4', '--quiet'], io);
    expect(code).toBe(0);
    // Four pages of a local site take far less than the hold: without the wait, all four
    // would have been printed while the first one was still held.
    expect(linesWhenReleased).toEqual([1]);
    expect(lines).toHaveLength(4);
  });

  it('lets Ctrl-C end a command waiting for a reader', async () => {
    const interrupt = new AbortController();
    const { io, lines } = heldIo(interrupt.signal);
    setTimeout(() => interrupt.abort(), holdMs / 3);
    const code = await runCli(['crawl', `${site}/`, '--limit', '4', '--quiet'], io);
    expect(code).toBe(130);
    expect(lines).toHaveLength(1);
  });
});
