import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configRows, envNamesOf, loadConfig, type ProcessRole } from '@trawl/http';

/** The variable names of a README table cell: the name, then each `, alias NAME`. */
const envNamesOfCell = (name = '', aliases = '') => [
  name,
  ...[...aliases.matchAll(/`(TRAWL_\w+)`/g)].map((match) => match[1]),
];

describe('configuration', () => {
  it('lists every setting in the README configuration table, and nothing else', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(join(import.meta.dirname, '../../../README.md'), 'utf8');
    const table = readme.split('## Configuration')[1]?.split('\n## ')[0] ?? '';
    const rows = [
      ...table.matchAll(/^\| `(\w+)` \| `(TRAWL_\w+|PORT)`((?:, alias `TRAWL_\w+`)*) \|/gm),
    ].map((match) => [match[1], envNamesOfCell(match[2], match[3])]);
    expect(rows).toEqual(configRows.map((row) => [row.key, envNamesOf(row)]));
  });

  it('applies defaults when nothing is set', () => {
    const config = loadConfig({ role: 'cli', env: {} });
    expect(config.dataDir).toMatch(/\.trawl$/);
    expect(config.engine.maxRedirects).toBe(10);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('sizes the conversion pool from TRAWL_CONVERT_THREADS, the cores less one by default', () => {
    expect(loadConfig({ role: 'cli', env: {} }).engine.convertThreads).toBe(
      Math.max(1, availableParallelism() - 1),
    );
    expect(loadConfig({ role: 'cli', env: { TRAWL_CONVERT_THREADS: '0' } }).engine.convertThreads).toBe(0);
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_CONVERT_THREADS: '-1' } })).toThrow(
      /TRAWL_CONVERT_THREADS/,
    );
  });

  it('takes a command default only where no flag, variable or file sets the key', () => {
    const directory = mkdtempSync(join(tmpdir(), 'trawl-config-'));
    const file = join(directory, 'trawl.json');
    writeFileSync(file, JSON.stringify({ convertThreads: 3 }));
    const threads = (env: Record<string, string>, flags = {}, configFile?: string): number =>
      loadConfig({ role: 'serve', env, flags, ...(configFile ? { configFile } : {}) }).engine
        .convertThreads;
    // trawl serve: one thread per core, where the general default leaves one core out.
    expect(threads({})).toBe(availableParallelism());
    expect(threads({ TRAWL_CONVERT_THREADS: '1' })).toBe(1);
    expect(threads({}, {}, file)).toBe(3);
    expect(threads({}, { convertThreads: 0 })).toBe(0);
    expect(() => loadConfig({ role: 'cli', env: {}, defaults: { convertThreads: -1 } })).toThrow(
      /convertThreads|Worker threads/,
    );
  });

  it('takes flags over environment over config file', () => {
    const directory = mkdtempSync(join(tmpdir(), 'trawl-config-'));
    const file = join(directory, 'trawl.json');
    writeFileSync(
      file,
      JSON.stringify({ maxRedirects: 3, dataDir: '/from-file', userAgent: 'file-agent' }),
    );
    const config = loadConfig({
      role: 'cli',
      env: { TRAWL_CONFIG: file, TRAWL_MAX_REDIRECTS: '5' },
      flags: { dataDir: '/from-flag' },
    });
    expect(config.dataDir).toBe('/from-flag');
    expect(config.engine.maxRedirects).toBe(5);
    expect(config.engine.userAgent).toBe('file-agent');
  });

  it('names the setting and its source when a value is bad', () => {
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_MAX_BODY_BYTES: 'lots' } })).toThrow(
      /TRAWL_MAX_BODY_BYTES/,
    );
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_PROXY_URL: 'ftp://proxy' } })).toThrow(
      /TRAWL_PROXY_URL/,
    );
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_ALLOW_PRIVATE_ADDRESSES: 'maybe' } })).toThrow(
      /TRAWL_ALLOW_PRIVATE_ADDRESSES/,
    );
  });

  it('caps crawl limits at 1,000,000 unless TRAWL_MAX_CRAWL_LIMIT says otherwise', () => {
    expect(loadConfig({ role: 'cli', env: {} }).engine.maxCrawlLimit).toBe(1_000_000);
    expect(loadConfig({ role: 'cli', env: { TRAWL_MAX_CRAWL_LIMIT: '500' } }).engine.maxCrawlLimit).toBe(500);
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_MAX_CRAWL_LIMIT: '0' } })).toThrow(
      /TRAWL_MAX_CRAWL_LIMIT/,
    );
  });

  it('refuses private addresses by default in every role a network reaches, not in the CLI', () => {
    const allowed = (role: ProcessRole, env: Record<string, string> = {}) =>
      loadConfig({ role, env }).engine.allowPrivateAddresses;
    expect(allowed('serve')).toBe(false);
    expect(allowed('api')).toBe(false);
    expect(allowed('worker')).toBe(false);
    expect(allowed('cli')).toBe(true);
    // An empty variable is no setting: the role's default stands.
    expect(allowed('worker', { TRAWL_ALLOW_PRIVATE_ADDRESSES: '' })).toBe(false);
    expect(allowed('serve', { TRAWL_ALLOW_PRIVATE_TARGETS: '' })).toBe(false);
    // The explicit allow (a test's loopback site, a LAN deployment) holds in every role.
    for (const role of ['serve', 'api', 'worker'] as const) {
      expect(allowed(role, { TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true' })).toBe(true);
      expect(allowed(role, { TRAWL_ALLOW_PRIVATE_TARGETS: '1' })).toBe(true);
    }
    expect(allowed('cli', { TRAWL_ALLOW_PRIVATE_ADDRESSES: 'false' })).toBe(false);
  });

  it('reads TRAWL_ALLOW_PRIVATE_TARGETS as an alias of TRAWL_ALLOW_PRIVATE_ADDRESSES', () => {
    const allowed = (env: Record<string, string>) =>
      loadConfig({ role: 'cli', env, flags: {} }).engine.allowPrivateAddresses;
    expect(allowed({ TRAWL_ALLOW_PRIVATE_TARGETS: 'false' })).toBe(false);
    expect(allowed({ TRAWL_ALLOW_PRIVATE_TARGETS: '1' })).toBe(true);
    expect(
      allowed({ TRAWL_ALLOW_PRIVATE_ADDRESSES: 'false', TRAWL_ALLOW_PRIVATE_TARGETS: 'false' }),
    ).toBe(false);
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_ALLOW_PRIVATE_TARGETS: 'maybe' } })).toThrow(
      /environment variable TRAWL_ALLOW_PRIVATE_TARGETS/,
    );
    expect(() =>
      loadConfig({
        role: 'cli',
        env: { TRAWL_ALLOW_PRIVATE_ADDRESSES: 'true', TRAWL_ALLOW_PRIVATE_TARGETS: 'false' },
      }),
    ).toThrow(/Conflicting settings: TRAWL_ALLOW_PRIVATE_ADDRESSES.*TRAWL_ALLOW_PRIVATE_TARGETS/);
  });

  it('refuses unknown keys and broken JSON in the config file', () => {
    const directory = mkdtempSync(join(tmpdir(), 'trawl-config-'));
    const unknown = join(directory, 'unknown.json');
    writeFileSync(unknown, JSON.stringify({ maxRedirect: 3 }));
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_CONFIG: unknown } })).toThrow(
      /Unknown key.*maxRedirect/,
    );
    const broken = join(directory, 'broken.json');
    writeFileSync(broken, '{ not json');
    expect(() => loadConfig({ role: 'cli', env: { TRAWL_CONFIG: broken } })).toThrow(/not valid JSON/);
  });
});
