/**
 * Browser sessions attacked as the first security pass did, against `trawl serve` as a
 * process and real Chromium: a session's browser may not open the server's files (file: pages,
 * the store's own database, file inputs, dropped files), nothing but the session's relay can
 * attach to its Chromium (no DevToolsActivePort, no debugging port for another session's code to
 * find), running code is off unless the operator turns it on, and code that runs may not read
 * files, list folders, start processes or workers. And a session's browser may not reach the
 * server's loopback or private addresses when the server refuses them: an "internal service" on
 * loopback counts the connections it gets, and a control server that allows private addresses
 * shows that the same probes do reach it there.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findChromium } from '@trawl/core';
import { startServe, type ServeProcess } from './serve-process.ts';

const fixture = inject('fixtureUrl');
const keyA = 'fc-sessions-team-a';
const keyB = 'fc-sessions-team-b';
/** A line of /etc/passwd: seeing it means the file was read. */
const passwdLine = /root:x:0:0:/;

const chromiumMissing = (() => {
  try {
    findChromium();
    return false;
  } catch {
    return true;
  }
})();

/** Starts `trawl serve` with two teams' keys. */
function serve(env: Record<string, string> = {}): Promise<ServeProcess> {
  return startServe({ TRAWL_API_KEYS: `team-a:${keyA},team-b:${keyB}`, ...env });
}

async function api(server: ServeProcess, key: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function createSession(server: ServeProcess, key: string) {
  const created = await api(server, key, '/v2/browser', { ttl: 120 });
  expect(created.status).toBe(200);
  return created.body as { id: string; cdpUrl: string };
}

async function destroy(server: ServeProcess, key: string, id: string): Promise<void> {
  await fetch(`${server.url}/v2/browser/${id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${key}` },
  });
}

/** The server process and everything it started (Chromium, its helpers, session code). */
function processTree(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name may hold spaces and parentheses: the parent id follows the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended meanwhile.
    }
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index++) {
    for (const [pid, parent] of parents) if (parent === tree[index]) tree.push(pid);
  }
  return tree;
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** TCP ports the given processes listen on (any address), as an attacker on the machine sees them. */
function listeningPorts(pids: number[]): number[] {
  const inodes = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // st 0A is LISTEN; the local address ends with :PORT in hex.
      if (fields[3] === '0A') inodes.set(fields[9]!, parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  const ports = new Set<number>();
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        const port = inode ? inodes.get(inode) : undefined;
        if (port !== undefined) ports.add(port);
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  return [...ports];
}

/** Every page and frame of the browser, with its URL and text. */
async function everything(browser: Browser): Promise<Array<{ url: string; text: string }>> {
  const seen: Array<{ url: string; text: string }> = [];
  for (const context of browser.contexts()) {
    for (const page of context.pages()) {
      for (const frame of page.frames()) {
        const text = await Promise.race([
          frame.evaluate(() => document.documentElement.outerHTML).catch(() => ''),
          new Promise<string>((resolve) => setTimeout(() => resolve(''), 2000)),
        ]);
        seen.push({ url: frame.url(), text });
      }
    }
  }
  return seen;
}

/** A service on the server's loopback that trusts local callers; it counts who connects. */
interface InternalService {
  port: number;
  connections: number;
  close: () => Promise<void>;
}

async function startInternalService(): Promise<InternalService> {
  const server: HttpServer = createServer((_req, res) => {
    // A fresh connection per request, so that each probe is counted on its own.
    res.writeHead(200, {
      'content-type': 'text/html',
      connection: 'close',
      'cache-control': 'no-store',
    });
    res.end('<p>INTERNAL ADMIN PAGE</p>');
  });
  const service = { port: 0, connections: 0, close: async () => {} };
  // Every contact counts: a new connection, and each request or WebSocket handshake, since
  // Chromium may send a request over a socket it opened ahead of time (a preconnect).
  server.on('connection', () => service.connections++);
  server.on('request', () => service.connections++);
  server.on('upgrade', (_req, socket) => {
    service.connections++;
    socket.destroy();
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  service.port = (server.address() as AddressInfo).port;
  service.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return service;
}

/**
 * Every way a session's client reaches the internal service, in each context it has: navigations
 * (plain and IPv4-mapped loopback), a worker's fetches from what loaded there, and a data: page's
 * fetches and WebSockets. Returns the
 * connections the service saw for each.
 */
async function probeInternal(
  browser: Browser,
  service: InternalService,
): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  const count = async (name: string, probe: () => Promise<unknown>) => {
    const before = service.connections;
    await probe().catch(() => undefined);
    // Connections are counted when the service accepts them, which may trail the page a little.
    for (let waited = 0; service.connections === before && waited < 1000; waited += 100) {
      await settle(100);
    }
    seen[name] = service.connections - before;
  };
  const hosts = { loopback: '127.0.0.1', mapped: '[::ffff:7f00:1]' };
  const contexts = [browser.contexts()[0]!, await browser.newContext()];
  for (const [index, context] of contexts.entries()) {
    const page = context.pages()[0] ?? (await context.newPage());
    for (const [form, host] of Object.entries(hosts)) {
      const url = `http://${host}:${service.port}/`;
      await count(`context ${index}: navigate ${form}`, () => page.goto(url, { timeout: 5000 }));
      // A worker of whatever page that origin shows (a refusal in a guarded session).
      await count(`context ${index}: worker fetch ${form}`, () =>
        page.evaluate((target) => {
          const script = `fetch(${JSON.stringify(target)}, { mode: 'no-cors' }).finally(() => postMessage(1))`;
          const worker = new Worker(
            URL.createObjectURL(new Blob([script], { type: 'text/javascript' })),
          );
          return new Promise((resolve) => {
            worker.onmessage = worker.onerror = resolve;
            setTimeout(resolve, 3000);
          });
        }, `${url}worker`),
      );
      await page.goto('data:text/html,<p>attacker</p>');
      await count(`context ${index}: fetch ${form}`, () =>
        page.evaluate(
          (target) => fetch(target, { mode: 'no-cors' }).then(() => 'ok'),
          `${url}fetch`,
        ),
      );
      await count(`context ${index}: websocket ${form}`, () =>
        page.evaluate(
          (target) =>
            new Promise((resolve) => {
              const socket = new WebSocket(target);
              socket.onopen = socket.onerror = socket.onclose = resolve;
              setTimeout(resolve, 3000);
            }),
          url.replace(/^http/, 'ws'),
        ),
      );
    }
  }
  return seen;
}

const settle = (ms = 1000) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(chromiumMissing)('a browser session on a default server', () => {
  let server: ServeProcess;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server?.stop());

  it('refuses file:, chrome: and view-source: pages, the store’s own files included', async () => {
    const session = await createSession(server, keyA);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      const storeFiles = readdirSync(server.dataDir).map((name) => join(server.dataDir, name));
      expect(storeFiles.some((file) => file.endsWith('trawl.db'))).toBe(true);
      for (const url of [
        'file:///etc/passwd',
        'file:///etc/',
        ...storeFiles.map((file) => `file://${file}`),
        'chrome://version',
        'about:version',
        'view-source:file:///etc/passwd',
        `view-source:${fixture}/articles/plain.html`,
      ]) {
        await expect(page.goto(url, { timeout: 5000 }), url).rejects.toThrow(/refused/);
      }
      // The same through raw CDP, in a new tab.
      const cdp = await browser.contexts()[0]!.newCDPSession(page);
      await expect(cdp.send('Target.createTarget', { url: 'file:///etc/passwd' })).rejects.toThrow(
        /refused/,
      );

      // Pages may not get there on their own: a navigation, a frame, a window, a redirect.
      await page.goto(`${fixture}/articles/plain.html`);
      await page.evaluate(() => {
        const frame = document.createElement('iframe');
        frame.src = 'file:///etc/passwd';
        document.body.append(frame);
        window.open('file:///etc/passwd');
        location.href = 'file:///etc/passwd';
      });
      await settle();
      await page
        .goto(`${fixture}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, {
          timeout: 5000,
        })
        .catch(() => undefined);
      await settle();
      for (const { url, text } of await everything(browser)) {
        expect(url).not.toMatch(/^(file|chrome|view-source):/);
        expect(text).not.toMatch(passwdLine);
      }
    } finally {
      await browser.close();
      await destroy(server, keyA, session.id);
    }
  });

  it('refuses a file input or a drop that names a path on the server', async () => {
    const session = await createSession(server, keyA);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const page: Page = browser.contexts()[0]!.pages()[0]!;
      await page.goto('data:text/html,<input type="file" id="upload">');
      const cdp = await browser.contexts()[0]!.newCDPSession(page);
      const { root } = await cdp.send('DOM.getDocument');
      const { nodeId } = await cdp.send('DOM.querySelector', {
        nodeId: root.nodeId,
        selector: '#upload',
      });
      await expect(
        cdp.send('DOM.setFileInputFiles', { nodeId, files: ['/etc/passwd'] }),
      ).rejects.toThrow(/disk/);
      await expect(
        cdp.send('Input.dispatchDragEvent', {
          type: 'dragEnter',
          x: 10,
          y: 10,
          data: { items: [], files: ['/etc/passwd'], dragOperationsMask: 1 },
        }),
      ).rejects.toThrow(/disk/);
      expect(
        await page.evaluate(
          () => (document.getElementById('upload') as HTMLInputElement).files!.length,
        ),
      ).toBe(0);
      // Contents the client sends itself still upload (Playwright's locators and upload travel
      // in messages far above the WebSocket's old 64 KiB limit).
      await page.setInputFiles('#upload', {
        name: 'note.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('from the client'),
      });
      expect(
        await page.evaluate(
          () => (document.getElementById('upload') as HTMLInputElement).files![0]!.size,
        ),
      ).toBe(15);
    } finally {
      await browser.close();
      await destroy(server, keyA, session.id);
    }
  });

  it('gives no other process a way into a session’s Chromium: no DevToolsActivePort, no port', async () => {
    const a = await createSession(server, keyA);
    const b = await createSession(server, keyB);
    try {
      const tree = processTree(server.child.pid!);
      const browsers = tree.filter((pid) =>
        commandLine(pid).some(
          (arg) => arg === `--trawl-session=${a.id}` || arg === `--trawl-session=${b.id}`,
        ),
      );
      expect(browsers).toHaveLength(2);
      for (const pid of browsers) {
        const args = commandLine(pid);
        expect(args).toContain('--remote-debugging-pipe');
        expect(args.some((arg) => arg.startsWith('--remote-debugging-port'))).toBe(false);
        const profile = args.find((arg) => arg.startsWith('--user-data-dir='))!.split('=')[1]!;
        expect(existsSync(join(profile, 'DevToolsActivePort'))).toBe(false);
        // The session's folder is its owner's alone.
        expect(statSync(dirname(profile)).mode & 0o777).toBe(0o700);
      }
      // Whatever the server's processes listen on, none of it is a CDP endpoint.
      const ports = listeningPorts(tree);
      expect(ports.length).toBeGreaterThan(0);
      for (const port of ports) {
        await expect(
          chromium.connectOverCDP(`http://127.0.0.1:${port}`, { timeout: 3000 }),
          `port ${port}`,
        ).rejects.toThrow();
      }
      // Chromium's helpers listen on nothing either.
      const chromiumTree = browsers.flatMap((pid) => processTree(pid));
      expect(listeningPorts(chromiumTree)).toEqual([]);
    } finally {
      await destroy(server, keyA, a.id);
      await destroy(server, keyB, b.id);
    }
  });

  it('refuses to run code unless the operator turned it on', async () => {
    const session = await createSession(server, keyA);
    try {
      const run = await api(server, keyA, `/v2/browser/${session.id}/execute`, {
        code: 'return 1',
        language: 'node',
      });
      expect(run.status).toBe(501);
      expect(run.body).toMatchObject({
        success: false,
        code: 'NOT_CONFIGURED',
        error: expect.stringContaining('browserExecute (TRAWL_BROWSER_EXECUTE) set to node'),
      });
    } finally {
      await destroy(server, keyA, session.id);
    }
  });
});

describe.skipIf(chromiumMissing)('session code on a server with TRAWL_BROWSER_EXECUTE=node', () => {
  let server: ServeProcess;
  beforeAll(async () => {
    server = await serve({ TRAWL_BROWSER_EXECUTE: 'node' });
  });
  afterAll(() => server?.stop());

  const execute = async (id: string, code: string) => {
    const run = await api(server, keyA, `/v2/browser/${id}/execute`, {
      code,
      language: 'node',
      timeout: 60,
    });
    expect(run.status).toBe(200);
    return run.body as { result: string; stderr: string; exitCode: number };
  };

  it('may not read files, list folders, write, start processes, workers or the inspector', async () => {
    const session = await createSession(server, keyA);
    try {
      const run = await execute(
        session.id,
        `
        const outcome = {};
        const attempt = async (name, act) => {
          try { await act(); outcome[name] = 'ALLOWED'; } catch (error) { outcome[name] = error.code ?? String(error); }
        };
        const fs = await import('node:fs');
        await attempt('read /etc/passwd', () => fs.readFileSync('/etc/passwd'));
        await attempt('read the store', () => fs.readFileSync(${JSON.stringify(join(server.dataDir, 'trawl.db'))}));
        await attempt('list /tmp', () => fs.readdirSync(${JSON.stringify(tmpdir())}));
        await attempt('read /proc', () => fs.readFileSync('/proc/self/environ'));
        await attempt('write /tmp', () => fs.writeFileSync(${JSON.stringify(join(tmpdir(), 'trawl-session-planted'))}, 'x'));
        await attempt('spawn', async () => (await import('node:child_process')).execFileSync('/bin/sh', ['-c', 'id']));
        await attempt('worker', async () => new (await import('node:worker_threads')).Worker('1', { eval: true }));
        await attempt('inspector', async () => (await import('node:inspector')).open(0));
        // node:sqlite opened files past Node 24's permission model.
        await attempt('open the store with node:sqlite', async () => new (await import('node:sqlite')).DatabaseSync(${JSON.stringify(join(server.dataDir, 'trawl.db'))}).prepare('select 1').get());
        return outcome;
        `,
      );
      expect(run.exitCode).toBe(0);
      const outcome = JSON.parse(run.result) as Record<string, string>;
      expect(Object.keys(outcome)).toHaveLength(9);
      for (const [name, result] of Object.entries(outcome)) {
        expect(result, name).toMatch(/^ERR_ACCESS_DENIED$|^ERR_UNKNOWN_BUILTIN_MODULE$/);
      }
    } finally {
      await destroy(server, keyA, session.id);
    }
  });

  it('cannot find or attach to another team’s session browser', async () => {
    const a = await createSession(server, keyA);
    const b = await createSession(server, keyB);
    const browserB = await chromium.connectOverCDP(b.cdpUrl);
    try {
      await browserB.contexts()[0]!.pages()[0]!.goto(`${fixture}/articles/plain.html?team=b`);
      // The attacker's code gets every port the server's processes listen on (more than it could
      // find itself) and tries each as a CDP endpoint, and as the relay with its own token.
      const ports = listeningPorts(processTree(server.child.pid!));
      const run = await execute(
        a.id,
        `
        const { chromium } = await import(process.env.TRAWL_PLAYWRIGHT_URL);
        const own = new URL(process.env.TRAWL_CDP_URL);
        const found = [];
        const ports = ${JSON.stringify(ports)};
        const targets = ports.flatMap((port) => [
          'http://127.0.0.1:' + port,
          'ws://127.0.0.1:' + port + '/devtools/browser',
          'ws://127.0.0.1:' + port + '/session/${b.id}' + own.search,
          'ws://127.0.0.1:' + port + '/cdp/${b.id}' + own.search,
        ]);
        for (const target of targets) {
          try {
            const other = await chromium.connectOverCDP(target, { timeout: 3000 });
            const urls = other.contexts().flatMap((context) => context.pages().map((page) => page.url()));
            found.push({ target, urls });
            await other.close();
          } catch {}
        }
        let tmp;
        try { tmp = (await import('node:fs')).readdirSync('/tmp'); } catch (error) { tmp = error.code; }
        return { found, tmp, own: browser.contexts().flatMap((c) => c.pages().map((p) => p.url())) };
        `,
      );
      expect(run.exitCode).toBe(0);
      const outcome = JSON.parse(run.result) as {
        found: Array<{ target: string; urls: string[] }>;
        tmp: unknown;
        own: string[];
      };
      expect(outcome.tmp).toBe('ERR_ACCESS_DENIED');
      expect(outcome.found).toEqual([]);
      expect(outcome.own.some((url) => url.includes('team=b'))).toBe(false);
    } finally {
      await browserB.close();
      await destroy(server, keyA, a.id);
      await destroy(server, keyB, b.id);
    }
  });
});

describe.skipIf(chromiumMissing)('a session’s browser and the server’s own network', () => {
  let guarded: ServeProcess;
  let open: ServeProcess;
  let service: InternalService;
  beforeAll(async () => {
    service = await startInternalService();
    // trawl serve refuses private addresses unless told otherwise.
    [guarded, open] = await Promise.all([
      serve(),
      serve({ TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([guarded?.stop(), open?.stop()]);
    await service?.close();
  });

  it('never reaches a loopback service, in any form or context, when private addresses are refused', async () => {
    const session = await createSession(guarded, keyA);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const seen = await probeInternal(browser, service);
      expect(Object.keys(seen)).toHaveLength(16);
      for (const [probe, connections] of Object.entries(seen)) expect(connections, probe).toBe(0);
      expect(service.connections).toBe(0);
    } finally {
      await browser.close();
      await destroy(guarded, keyA, session.id);
    }
  });

  it('refuses a context with a proxy of its own, which would go around the guard', async () => {
    const session = await createSession(guarded, keyA);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      await expect(browser.newContext({ proxy: { server: 'http://127.0.0.1:9' } })).rejects.toThrow(
        /proxy of its own/,
      );
      const cdp = await browser.newBrowserCDPSession();
      for (const params of [{ proxyServer: 'direct://' }, { proxyBypassList: '*' }]) {
        await expect(cdp.send('Target.createBrowserContext', params)).rejects.toThrow(
          /proxy of its own/,
        );
      }
    } finally {
      await browser.close();
      await destroy(guarded, keyA, session.id);
    }
  });

  it('refuses a redirect to file: where the fixture site loads (the guarded server refuses it earlier)', async () => {
    const session = await createSession(open, keyA);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const page = browser.contexts()[0]!.pages()[0]!;
      await page
        .goto(`${fixture}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, {
          timeout: 5000,
        })
        .catch(() => undefined);
      await settle();
      for (const { url, text } of await everything(browser)) {
        expect(url).not.toMatch(/^file:/);
        expect(text).not.toMatch(passwdLine);
      }
    } finally {
      await browser.close();
      await destroy(open, keyA, session.id);
    }
  });

  it('does reach it when the operator allows private addresses (the probes see a leak)', async () => {
    const session = await createSession(open, keyA);
    const browser = await chromium.connectOverCDP(session.cdpUrl);
    try {
      const seen = await probeInternal(browser, service);
      for (const [probe, connections] of Object.entries(seen)) {
        expect(connections, probe).toBeGreaterThan(0);
      }
    } finally {
      await browser.close();
      await destroy(open, keyA, session.id);
    }
  });
});
