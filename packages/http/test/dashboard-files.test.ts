/**
 * The dashboard's files are read once, by name: the built page at `/` and the hashed files
 * under `/assets/`, nothing else; no build means none (the server then says how to build it).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dashboardCsp, readDashboard } from '../src/server/routes/dashboard.js';

describe('readDashboard', () => {
  it('maps the page and its assets by URL path, leaving out files of unknown kinds', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-dashboard-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html>');
    writeFileSync(join(dir, 'assets', 'index-abc.js'), 'export {}');
    writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body{}');
    writeFileSync(join(dir, 'assets', 'notes.md'), '# not served');
    const files = readDashboard(dir);
    expect([...(files?.keys() ?? [])].sort()).toEqual([
      '/',
      '/assets/index-abc.css',
      '/assets/index-abc.js',
    ]);
    expect(files?.get('/assets/index-abc.js')?.type).toBe('text/javascript; charset=utf-8');
  });

  it('is undefined where nothing was built', () => {
    expect(readDashboard(join(tmpdir(), 'trawl-no-dashboard-here'))).toBeUndefined();
  });

  it('allows no inline script, no eval and no framing', () => {
    expect(dashboardCsp).toContain("script-src 'self'");
    expect(dashboardCsp).toContain("frame-ancestors 'none'");
    expect(dashboardCsp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
  });
});
