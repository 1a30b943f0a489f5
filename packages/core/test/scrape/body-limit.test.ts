/**
 * A body past `maxBodyBytes` is a CONTENT_TOO_LARGE error naming its size, the limit and the
 * option, whether the server declares its length or streams it; never an 'error' event that
 * nothing listens to (undici's RequestAbortedError once ended the process, CLI and server alike).
 * Vitest fails a run on an unhandled error, so a crash shows as a failure here.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveEngineConfig, scrape } from '../../src/index.js';

const pdf = readFileSync(join(import.meta.dirname, '../../../../test/parse-corpus/out/report.pdf'));
let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/declared.pdf') {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
      res.end(pdf);
      return;
    }
    // No Content-Length: the body arrives in chunks until the reader stops.
    res.writeHead(200, { 'content-type': 'application/pdf' });
    for (let offset = 0; offset < pdf.length; offset += 4096) {
      res.write(pdf.subarray(offset, offset + 4096));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const config = resolveEngineConfig({ maxBodyBytes: 10_000, convertThreads: 0 });
/** Lets an 'error' event emitted after the rejection surface before the test ends. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

describe('maxBodyBytes', () => {
  it('refuses a body whose declared length is past the limit, naming both and the option', async () => {
    const error = await scrape(`${origin}/declared.pdf`, { maxAge: 0 }, { config }).catch(
      (caught: unknown) => caught,
    );
    await settle();
    expect(error).toMatchObject({
      code: 'CONTENT_TOO_LARGE',
      details: { setting: 'maxBodyBytes', limitBytes: 10_000, sizeBytes: pdf.length },
    });
    const message = (error as Error).message;
    expect(message).toContain(`${pdf.length.toLocaleString('en-US')} bytes`);
    expect(message).toContain('10,000 bytes');
    expect(message).toContain('maxBodyBytes');
    expect(message).not.toMatch(/\b0 MiB/);
  });

  it('stops reading a streamed body at the limit, with the same error', async () => {
    for (let round = 0; round < 4; round++) {
      const error = await scrape(`${origin}/streamed.pdf`, { maxAge: 0 }, { config }).catch(
        (caught: unknown) => caught,
      );
      expect(error).toMatchObject({
        code: 'CONTENT_TOO_LARGE',
        details: { setting: 'maxBodyBytes', limitBytes: 10_000 },
      });
      expect((error as Error).message).toMatch(/10,000 bytes limit.*maxBodyBytes/s);
    }
    await settle();
  });
});
