import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errorCodes, NotFoundError, TimeoutError } from '@trawl/core';
import { errorReply, httpStatusOf } from '../src/server/errors.js';

describe('server error answers', () => {
  it('give every error code the status docs/errors.md lists', async () => {
    const doc = await readFile(join(import.meta.dirname, '../../../docs/errors.md'), 'utf8');
    const documented = new Map(
      [...doc.matchAll(/^\| `([A-Z_]+)` \| [^|]+ \| (\d{3}|—) \|/gm)].map((match) => [
        match[1],
        match[2] === '—' ? null : Number(match[2]),
      ]),
    );
    for (const code of errorCodes)
      expect([code, documented.get(code)]).toEqual([code, httpStatusOf[code]]);
  });

  it('hide unexpected errors behind an exception id, with no message or stack', () => {
    const reply = errorReply(new Error('secret database password in /etc/x'));
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({
      success: false,
      code: 'UNKNOWN_ERROR',
      error: `An unexpected error occurred. Please contact the operator for help. Your exception ID is ${reply.exceptionId}`,
    });
    expect(JSON.stringify(reply.body)).not.toMatch(/secret|at .*\.ts/);
  });

  it('keep the code, message and details of Trawl errors', () => {
    expect(errorReply(new TimeoutError('took too long'))).toEqual({
      status: 408,
      body: { success: false, code: 'SCRAPE_TIMEOUT', error: 'took too long' },
    });
    expect(errorReply(new NotFoundError('no copy', { code: 'SCRAPE_NO_CACHED_DATA' })).status).toBe(
      404,
    );
  });
});
