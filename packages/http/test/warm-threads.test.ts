/**
 * `bin.ts` starts the conversion threads before loading the command (cli/warm-threads.ts): only
 * for commands that convert pages, at the size their configuration will ask for.
 */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { threadsToWarm } from '../src/cli/warm-threads.js';

describe('threadsToWarm', () => {
  it('starts the default pool for commands that convert pages, and none for the others', () => {
    for (const command of ['scrape', 'crawl', 'batch'])
      expect(threadsToWarm([command, 'https://example.com/'], {}, 3)).toBe(3);
    for (const command of ['parse', 'map', 'keys', 'search', '--version'])
      expect(threadsToWarm([command], {}, 3)).toBeUndefined();
    expect(threadsToWarm([], {}, 3)).toBeUndefined();
  });

  it('starts nothing for a command asked for its help', () => {
    expect(threadsToWarm(['crawl', '--help'], {}, 3)).toBeUndefined();
    expect(threadsToWarm(['scrape', '-h'], {}, 3)).toBeUndefined();
  });

  it('gives trawl serve a thread per core, as its configuration does', () => {
    expect(threadsToWarm(['serve'], {}, 1)).toBe(availableParallelism());
  });

  it('follows TRAWL_CONVERT_THREADS, and starts none for 0 or a value the configuration refuses', () => {
    expect(threadsToWarm(['crawl', 'x'], { TRAWL_CONVERT_THREADS: '4' }, 1)).toBe(4);
    expect(threadsToWarm(['serve'], { TRAWL_CONVERT_THREADS: ' 2 ' }, 1)).toBe(2);
    expect(threadsToWarm(['crawl', 'x'], { TRAWL_CONVERT_THREADS: '0' }, 1)).toBeUndefined();
    expect(threadsToWarm(['crawl', 'x'], { TRAWL_CONVERT_THREADS: 'many' }, 1)).toBeUndefined();
    expect(threadsToWarm(['crawl', 'x'], { TRAWL_CONVERT_THREADS: '' }, 5)).toBe(5);
  });
});
