/**
 * `TRAWL_MAX_BODY_BYTES` below a page's size, as the attack: a scrape of a 54 KB PDF once ended
 * `trawl serve` and `trawl scrape` with an unhandled 'error' event (undici's RequestAbortedError)
 * after a message about a "0 MiB limit". Both now answer CONTENT_TOO_LARGE naming the size, the
 * limit and the variable, and the server keeps serving.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess, type KeyedServeProcess } from './serve-process.ts';

const bin = join(import.meta.dirname, '../../packages/http/src/bin.ts');
const pdf = readFileSync(join(import.meta.dirname, '../parse-corpus/out/report.pdf'));
const size = `${pdf.length.toLocaleString('en-US')} bytes`;
let site: Server;
let origin: string;

beforeAll(async () => {
  site = createServer((req, res) => {
    // /streamed.pdf comes without a Content-Length, in chunks.
    const declared = req.url === '/declared.pdf';
    res.writeHead(200, {
      'content-type': 'application/pdf',
      ...(declared ? { 'content-length': pdf.length } : {}),
    });
    for (let offset = 0; offset < pdf.length; offset += 4096)
      res.write(pdf.subarray(offset, offset + 4096));
    res.end();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => {
  site.closeAllConnections();
  site.close();
});

/** Runs `trawl scrape` with the low limit; its exit code and stderr. */
function cliScrape(url: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--conditions=development', bin, 'scrape', url, '--no-cache'],
      {
        env: {
          ...process.env,
          TRAWL_MAX_BODY_BYTES: '10000',
          TRAWL_DATA_DIR: mkdtempSync(join(tmpdir(), 'trawl-body-limit-')),
        },
        timeout: 60_000,
      },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
}

describe('a body past TRAWL_MAX_BODY_BYTES', () => {
  it('trawl scrape: a clean CONTENT_TOO_LARGE naming the size, the limit and the variable', async () => {
    for (const path of ['/declared.pdf', '/streamed.pdf']) {
      const { code, stderr } = await cliScrape(`${origin}${path}`);
      expect(code, stderr).toBe(1);
      expect(stderr).toMatch(/^trawl scrape: CONTENT_TOO_LARGE: .*10,000 bytes limit/);
      expect(stderr).toContain('TRAWL_MAX_BODY_BYTES');
      if (path === '/declared.pdf') expect(stderr).toContain(size);
      expect(stderr).not.toMatch(/Unhandled|RequestAbortedError|0 MiB/);
      // One line: the message, and no stack trace after it.
      expect(stderr.trim().split('\n')).toHaveLength(1);
    }
  }, 120_000);

  describe('trawl serve', () => {
    let server: KeyedServeProcess;
    beforeAll(async () => {
      server = await serveProcess({ TRAWL_MAX_BODY_BYTES: '10000' });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it('answers 413 CONTENT_TOO_LARGE naming the size, the limit and the variable, and stays up', async () => {
      for (let round = 0; round < 4; round++) {
        for (const path of ['/declared.pdf', '/streamed.pdf']) {
          const answer = await server.call('POST', '/v2/scrape', {
            url: `${origin}${path}`,
            maxAge: 0,
          });
          expect(answer.status, path).toBe(413);
          expect(answer.body).toMatchObject({ success: false, code: 'CONTENT_TOO_LARGE' });
          const message = String(answer.body['error']);
          expect(message).toMatch(/10,000 bytes limit.*maxBodyBytes.*TRAWL_MAX_BODY_BYTES/s);
          if (path === '/declared.pdf') expect(message).toContain(size);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(server.child.exitCode).toBeNull();
      const health = await fetch(`${server.url}/health`);
      expect(health.status).toBe(200);
    }, 120_000);
  });
});
