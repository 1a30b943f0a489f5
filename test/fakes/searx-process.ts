/**
 * A real searx (Debian's `searx` package, 1.1.0) as a child process, configured with one
 * `json_engine` engine that queries the fixture site's `/search-api.json`, and one that points at
 * a closed port, so nothing leaves the machine and `unresponsive_engines` is real. The settings
 * are written by hand here (searx ships no default settings.yml in Debian): JSON is valid YAML.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const searxRun = '/usr/bin/searx-run';
/** Debian's python3-searx keeps its templates and static files here. */
const searxShare = '/usr/share/python3-searx';

/** Whether searx is installed (`apt-get install searx`). */
export const hasSearx = existsSync(searxRun) && existsSync(searxShare);

/** A running searx. */
export interface SearxProcess {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Starts searx against the fixture site; resolves once it answers JSON (at most 30 s). */
export async function startSearx(fixtureUrl: string): Promise<SearxProcess> {
  const port = await freePort();
  const deadPort = await freePort();
  const jsonEngine = (name: string, shortcut: string, base: string) => ({
    name,
    engine: 'json_engine',
    shortcut,
    categories: 'general',
    // searx's own pool refuses plain http unless the engine allows it.
    enable_http: true,
    search_url: `${base}/search-api.json?q={query}`,
    results_query: 'results',
    url_query: 'url',
    title_query: 'title',
    content_query: 'content',
    paging: false,
  });
  const settings = {
    use_default_settings: false,
    general: { debug: false, instance_name: 'trawl-test' },
    search: {
      safe_search: 0,
      autocomplete: '',
      default_lang: '',
      ban_time_on_fail: 0,
      max_ban_time_on_fail: 0,
      formats: ['html', 'json'],
    },
    server: {
      port,
      bind_address: '127.0.0.1',
      secret_key: 'trawl-test-secret',
      base_url: false,
      image_proxy: false,
      http_protocol_version: '1.0',
      method: 'GET',
      default_http_headers: {},
    },
    ui: {
      static_path: join(searxShare, 'static'),
      templates_path: join(searxShare, 'templates'),
      default_theme: 'oscar',
      default_locale: '',
      theme_args: { oscar_style: 'logicodev' },
    },
    outgoing: { request_timeout: 3 },
    locales: { en: 'English' },
    doi_resolvers: { 'oadoi.org': 'https://oadoi.org/' },
    default_doi_resolver: 'oadoi.org',
    engines: [
      jsonEngine('fixture', 'fx', fixtureUrl),
      jsonEngine('deadengine', 'dd', `http://127.0.0.1:${deadPort}`),
    ],
  };
  const path = join(mkdtempSync(join(tmpdir(), 'trawl-searx-')), 'settings.yml');
  writeFileSync(path, JSON.stringify(settings));
  const child = spawn('/usr/bin/python3', [searxRun], {
    env: { ...process.env, SEARX_SETTINGS_PATH: path },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    log = (log + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(`${url}/search?q=probe&format=json`, {
        signal: AbortSignal.timeout(5000),
      });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`searx did not start: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
