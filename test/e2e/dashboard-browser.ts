/**
 * What the dashboard's browser test needs around it: the app built (a clean clone has only its
 * source; `npm test` builds it here when the build is missing or older than the source), a
 * Chromium driven by playwright-core, an axe-core pass over the page, and screenshots saved as
 * artifacts under the git-ignored `test-results/dashboard/`.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { findChromium } from '@trawl/core';

const repository = join(import.meta.dirname, '../..');
const source = join(repository, 'packages/http/dashboard');
const built = join(repository, 'packages/http/dist/dashboard/index.html');

/** The machine's Chromium, or undefined (the test then skips, and says why). */
export const chromiumPath = (() => {
  try {
    return findChromium();
  } catch (error) {
    console.warn(`Skipping the dashboard's browser test: ${(error as Error).message}`);
    return undefined;
  }
})();

/** Where the test saves its screenshots and the SDK code it copied (git-ignored). */
export const artifactsDir = join(repository, 'test-results/dashboard');

/** Newest modification time of the files under `dir`. */
function newest(dir: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return time;
}

/** Builds the dashboard (Vite) unless its build is newer than all of its source. */
export async function buildDashboardIfStale(): Promise<void> {
  const builtAt = statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const inputs = [join(source, 'src'), join(source, 'index.html'), join(source, 'vite.config.ts')];
  const changedAt = Math.max(
    ...inputs.map((path) => (statSync(path).isDirectory() ? newest(path) : statSync(path).mtimeMs)),
  );
  if (builtAt >= changedAt) return;
  // The package's own build script, as `npm run build` runs it.
  await promisify(execFile)('npm', ['run', 'build:dashboard', '-w', '@trawl/http'], {
    cwd: repository,
    // Vitest sets NODE_ENV=test, which would make Vite build for development.
    env: { ...process.env, NODE_ENV: 'production' },
    timeout: 120_000,
  });
}

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/** One axe-core finding, reduced to what a failure message needs. */
export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The serious and critical accessibility violations axe-core finds on the page as it is. */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  // Evaluated over the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axeSource);
  const findings = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<unknown> } })
      .axe;
    const result = (await axe.run(document)) as {
      violations: {
        id: string;
        impact: string | null;
        help: string;
        nodes: { target: string[] }[];
      }[];
    };
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(' ')),
    }));
  });
  return findings.filter(
    (finding) => finding.impact === 'serious' || finding.impact === 'critical',
  );
}

/** Saves a full-page screenshot of the view as `test-results/dashboard/<name>.png`. */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
}
