/**
 * Interactive browser sessions (`/v2/browser`, the official SDK's `browser()`, `browserExecute()`,
 * `listBrowsers()`, `deleteBrowser()`): a Chromium of its own per session, driven over the Chrome
 * DevTools Protocol by the caller (`chromium.connectOverCDP`) or by code the session runs.
 *
 * Each session is a separate Chromium process: a CDP client reaches everything in the browser it
 * connects to, so sessions must share nothing with each other or with the scrape pool. A session
 * ends when deleted, after `ttl` seconds in all, or after `activityTtl` seconds without activity;
 * its profile (when it has one with `saveChanges`) is saved when it ends.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { z } from 'zod';
import {
  FetchError,
  NotConfiguredError,
  NotFoundError,
  RateLimitError,
  TrawlError,
} from '../errors.ts';
import type { Store } from '../interfaces/store.ts';
import { actionsSchema, runActions, type CapturedFile } from './actions.ts';
import { findChromium, type ChromiumLookup } from './find-chromium.ts';
import { chromiumArgs, firstLine } from './pool.ts';
import { BrowserProfiles } from './profiles.ts';

/** The body of `POST /v2/browser`, as the hosted service takes it (times in seconds). */
export const browserSessionCreateShape = {
  ttl: z
    .number()
    .int()
    .min(30)
    .max(3600)
    .default(600)
    .describe('Seconds the session lives in all (30–3600).'),
  activityTtl: z
    .number()
    .int()
    .min(10)
    .max(3600)
    .default(300)
    .describe('Seconds without activity before the session ends (10–3600).'),
  streamWebView: z
    .boolean()
    .default(false)
    .describe('Accepted for compatibility; this server has no live view.'),
  profile: z
    .strictObject({ name: z.string().min(1).max(128), saveChanges: z.boolean().default(true) })
    .optional()
    .describe('Browser state (cookies, local storage) kept per team and name across sessions.'),
} as const;

/** Validates a session's settings, applying the hosted service's defaults. */
export const browserSessionCreateSchema = z.strictObject(browserSessionCreateShape);
/** What callers pass to create a session. */
export type BrowserSessionCreateInput = z.input<typeof browserSessionCreateSchema>;

/** The body of `POST /v2/browser/{id}/execute`: code (the SDK's form) or actions. */
export const browserExecuteShape = {
  code: z
    .string()
    .min(1)
    .max(100_000)
    .optional()
    .describe('Code to run; `page` is the session’s page.'),
  language: z
    .enum(['node', 'python', 'bash'])
    .default('node')
    .describe('Only node runs here: JavaScript with `page`, `context` and `browser` in scope.'),
  timeout: z
    .number()
    .int()
    .min(1)
    .max(300)
    .optional()
    .describe('Seconds the code may run (default 30).'),
  actions: actionsSchema
    .optional()
    .describe('Scrape actions to run on the session’s page instead of code.'),
} as const;

/** Validates what to run in a session: code or actions, not both. */
export const browserExecuteSchema = z
  .strictObject(browserExecuteShape)
  .refine((body) => (body.code === undefined) !== (body.actions === undefined), {
    message: 'give either code or actions',
    path: ['code'],
  });
/** What callers pass to run something in a session. */
export type BrowserExecuteInput = z.input<typeof browserExecuteSchema>;

/** What running code or actions in a session gave (the hosted service's execute answer). */
export interface BrowserExecuteResult {
  success: boolean;
  /** What the code printed (and returned), or the actions' results as JSON. */
  result: string;
  stdout: string;
  stderr: string;
  exitCode: number;
  /** The code ran past its timeout and was stopped. */
  killed: boolean;
  /** Output beyond 1 MiB was cut. */
  truncated: boolean;
  error?: string;
}

/** One session as callers see it. */
export interface BrowserSessionInfo {
  id: string;
  status: 'active' | 'destroyed';
  createdAt: string;
  lastActivity: string;
  expiresAt: string;
  streamWebView: boolean;
}

/** A running session, with what the server needs to connect a CDP client. */
export interface BrowserSession extends BrowserSessionInfo {
  team: string;
  /** Secret that lets a CDP client in without the API key (it is in the cdpUrl). */
  token: string;
  /** The browser's own DevTools WebSocket, on loopback. */
  cdpEndpoint: string;
  context: BrowserContext | undefined;
  userDataDir: string;
  profile: { name: string; saveChanges: boolean } | undefined;
  activityTtlMs: number;
  endedAt?: string;
}

/** Options of the session registry. */
export interface BrowserSessionsOptions {
  /** Where profiles are kept; sessions without profiles work without it. */
  store?: Store | undefined;
  chromium?: ChromiumLookup;
  /** Sessions a team may have open at once. @default 3 */
  perTeam?: number;
  /** How often expiry is checked, in ms. @default 1000 */
  sweepMs?: number;
}

/** Largest output kept of a run. */
const maxOutputBytes = 1024 * 1024;
/** Destroyed sessions listed per team (`?status=destroyed`). */
const keptDestroyed = 50;

// The code runs in a child Node process that connects to the session's browser over CDP: a
// crash or endless loop in it cannot take the server down, and Node's permission model keeps it
// from the server's files and from starting processes.
const runnerSource = `
const { chromium } = await import(process.env.TRAWL_PLAYWRIGHT_URL);
let code = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) code += chunk;
const browser = await chromium.connectOverCDP(process.env.TRAWL_CDP_URL);
const context = browser.contexts()[0] ?? (await browser.newContext());
const page = context.pages()[0] ?? (await context.newPage());
const AsyncFunction = (async () => {}).constructor;
let exitCode = 0;
try {
  const value = await new AsyncFunction('page', 'context', 'browser', code)(page, context, browser);
  if (value !== undefined) console.log(typeof value === 'string' ? value : JSON.stringify(value));
} catch (error) {
  console.error(error && error.stack ? error.stack : String(error));
  exitCode = 1;
}
process.exit(exitCode);
`;

/** The browser sessions of one server (or library user). Close it when done. */
export class BrowserSessions {
  readonly #options: BrowserSessionsOptions;
  readonly #sessions = new Map<string, BrowserSession>();
  readonly #destroyed = new Map<string, BrowserSessionInfo[]>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: BrowserSessionsOptions = {}) {
    this.#options = options;
    this.#sweeper = setInterval(() => void this.#sweep(), options.sweepMs ?? 1000);
    this.#sweeper.unref();
  }

  /**
   * Starts a session for a team.
   *
   * @throws RATE_LIMITED at the team's cap; NOT_CONFIGURED without Chromium; FETCH_FAILED when it
   * does not start; BAD_REQUEST for a profile without a store
   */
  async create(team: string, input: BrowserSessionCreateInput = {}): Promise<BrowserSession> {
    const settings = browserSessionCreateSchema.parse(input);
    const perTeam = this.#options.perTeam ?? 3;
    if (perTeam === 0) {
      throw new NotConfiguredError(
        'Browser sessions are turned off on this server (browserSessionsPerTeam, TRAWL_BROWSER_SESSIONS_PER_TEAM, is 0)',
        { code: 'CAPABILITY_UNAVAILABLE' },
      );
    }
    const open = [...this.#sessions.values()].filter((session) => session.team === team).length;
    if (open >= perTeam) {
      throw new RateLimitError(
        `Team ${team} already has ${open} browser session(s) open, the most allowed (${perTeam}): delete one first (DELETE /v2/browser/{id})`,
      );
    }
    const profiles = settings.profile ? new BrowserProfiles(this.#options.store, team) : undefined;
    const state =
      settings.profile && profiles ? await profiles.load(settings.profile.name) : undefined;
    const executablePath = findChromium(this.#options.chromium);
    const userDataDir = await mkdtemp(join(tmpdir(), 'trawl-session-'));
    const id = randomUUID();
    let context: BrowserContext;
    try {
      context = await chromium.launchPersistentContext(userDataDir, {
        executablePath,
        args: [
          ...chromiumArgs,
          '--remote-debugging-port=0',
          '--remote-debugging-address=127.0.0.1',
          `--trawl-session=${id}`,
        ],
        viewport: { width: 1920, height: 1080 },
      });
    } catch (error) {
      await rm(userDataDir, { recursive: true, force: true });
      throw new FetchError(
        `Chromium at ${executablePath} did not start for the session: ${firstLine(error)}`,
        {
          cause: error,
        },
      );
    }
    if (state) await context.setStorageState(state);
    const now = new Date();
    const session: BrowserSession = {
      id,
      team,
      status: 'active',
      createdAt: now.toISOString(),
      lastActivity: now.toISOString(),
      expiresAt: new Date(now.getTime() + settings.ttl * 1000).toISOString(),
      streamWebView: settings.streamWebView,
      token: randomBytes(24).toString('base64url'),
      cdpEndpoint: await devToolsEndpoint(userDataDir),
      context,
      userDataDir,
      profile: settings.profile,
      activityTtlMs: settings.activityTtl * 1000,
    };
    // Chromium gone (crash, kill): the session is over.
    context.once('close', () => void this.#end(session));
    this.#sessions.set(id, session);
    return session;
  }

  /** An active session of the team; undefined when unknown, ended or another team's. */
  get(team: string, id: string): BrowserSession | undefined {
    const session = this.#sessions.get(id);
    return session && session.team === team ? session : undefined;
  }

  /** An active session by its CDP token (the cdpUrl carries it instead of the API key). */
  byToken(id: string, token: string): BrowserSession | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    const given = Buffer.from(token);
    const expected = Buffer.from(session.token);
    return given.length === expected.length && given.equals(expected) ? session : undefined;
  }

  /** Marks activity (CDP traffic, runs), which pushes back the idle end. */
  touch(session: BrowserSession): void {
    session.lastActivity = new Date().toISOString();
  }

  /** The team's sessions, active by default. */
  list(team: string, status: 'active' | 'destroyed' = 'active'): BrowserSessionInfo[] {
    if (status === 'destroyed') return [...(this.#destroyed.get(team) ?? [])];
    return [...this.#sessions.values()].filter((session) => session.team === team).map(infoOf);
  }

  /**
   * Runs code (node only) or actions in the session's page.
   *
   * @throws NOT_FOUND for an unknown session; CAPABILITY_UNAVAILABLE for python or bash
   */
  async execute(
    team: string,
    id: string,
    input: BrowserExecuteInput,
    link: (file: CapturedFile) => Promise<string> = dataUri,
  ): Promise<BrowserExecuteResult> {
    const session = this.#require(team, id);
    const body = browserExecuteSchema.parse(input);
    this.touch(session);
    const timeoutMs = (body.timeout ?? 30) * 1000;
    try {
      if (body.actions) return await this.#runActions(session, body.actions, timeoutMs, link);
      if (body.language !== 'node') {
        throw new NotConfiguredError(
          `language '${body.language}' is not available here: sessions run JavaScript (language 'node') with page, context and browser in scope`,
          {
            code: 'CAPABILITY_UNAVAILABLE',
            details: [{ path: ['language'], message: 'only node' }],
          },
        );
      }
      return await runCode(session.cdpEndpoint, body.code ?? '', timeoutMs);
    } finally {
      this.touch(session);
    }
  }

  /**
   * Ends a session: saves its profile when asked, closes its browser.
   *
   * @throws NOT_FOUND for an unknown session
   */
  async destroy(team: string, id: string): Promise<{ sessionDurationMs: number }> {
    const session = this.#require(team, id);
    await this.#end(session);
    return { sessionDurationMs: Date.parse(session.endedAt ?? '') - Date.parse(session.createdAt) };
  }

  /** Ends every session (profiles saved) and stops the expiry timer. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#sessions.values()].map((session) => this.#end(session)));
  }

  #require(team: string, id: string): BrowserSession {
    const session = this.get(team, id);
    if (!session)
      throw new NotFoundError(`No active browser session ${id}: it ended or never existed`);
    return session;
  }

  async #runActions(
    session: BrowserSession,
    actions: z.output<typeof actionsSchema>,
    timeoutMs: number,
    link: (file: CapturedFile) => Promise<string>,
  ): Promise<BrowserExecuteResult> {
    const context = session.context;
    if (!context) throw new NotFoundError(`Browser session ${session.id} has ended`);
    const page = context.pages()[0] ?? (await context.newPage());
    try {
      const results = await runActions(page, actions, Date.now() + timeoutMs);
      const result = JSON.stringify({
        url: page.url(),
        screenshots: await Promise.all(results.screenshots.map(link)),
        scrapes: results.scrapes,
        javascriptReturns: results.javascriptReturns,
        pdfs: await Promise.all(results.pdfs.map(link)),
      });
      return {
        success: true,
        result,
        stdout: result,
        stderr: '',
        exitCode: 0,
        killed: false,
        truncated: false,
      };
    } catch (error) {
      // Like a failing script: the call succeeded, the run did not (hosted behaviour).
      const message = error instanceof TrawlError ? error.message : firstLine(error);
      return {
        success: true,
        result: '',
        stdout: '',
        stderr: message,
        exitCode: 1,
        killed: false,
        truncated: false,
        error: message,
      };
    }
  }

  async #sweep(): Promise<void> {
    const now = Date.now();
    for (const session of this.#sessions.values()) {
      const idleFor = now - Date.parse(session.lastActivity);
      if (now >= Date.parse(session.expiresAt) || idleFor >= session.activityTtlMs) {
        await this.#end(session).catch(() => undefined);
      }
    }
  }

  async #end(session: BrowserSession): Promise<void> {
    if (!this.#sessions.delete(session.id)) return;
    const context = session.context;
    session.context = undefined;
    session.status = 'destroyed';
    session.endedAt = new Date().toISOString();
    const destroyed = this.#destroyed.get(session.team) ?? [];
    destroyed.unshift(infoOf(session));
    this.#destroyed.set(session.team, destroyed.slice(0, keptDestroyed));
    if (context) {
      if (session.profile?.saveChanges) {
        const state = await context.storageState().catch(() => undefined);
        if (state)
          await new BrowserProfiles(this.#options.store, session.team).save(
            session.profile.name,
            state,
          );
      }
      await context.close().catch(() => undefined);
    }
    await rm(session.userDataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function infoOf(session: BrowserSession): BrowserSessionInfo {
  return {
    id: session.id,
    status: session.status,
    createdAt: session.createdAt,
    lastActivity: session.lastActivity,
    expiresAt: session.expiresAt,
    streamWebView: session.streamWebView,
  };
}

const dataUri = (file: CapturedFile) =>
  Promise.resolve(`data:${file.contentType};base64,${Buffer.from(file.bytes).toString('base64')}`);

/** The browser's DevTools WebSocket, which Chromium writes to DevToolsActivePort once it listens. */
async function devToolsEndpoint(userDataDir: string): Promise<string> {
  const file = join(userDataDir, 'DevToolsActivePort');
  for (let attempt = 0; attempt < 200 && !existsSync(file); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const [port, path] = (await readFile(file, 'utf8')).trim().split('\n');
  return `ws://127.0.0.1:${port}${path}`;
}

/** Runs code in a child Node process connected to the browser; never throws for the code's faults. */
function runCode(
  cdpEndpoint: string,
  code: string,
  timeoutMs: number,
): Promise<BrowserExecuteResult> {
  const playwrightUrl = import.meta.resolve('playwright-core');
  const playwrightDir = join(dirname(fileURLToPath(playwrightUrl)));
  const child = spawn(
    process.execPath,
    [
      '--permission',
      `--allow-fs-read=${playwrightDir}`,
      // Playwright asks whether it runs under WSL; nothing else of /proc (other processes'
      // environments) is readable.
      '--allow-fs-read=/proc/sys/fs/binfmt_misc/WSLInterop',
      '--allow-fs-read=/proc/version',
      '--allow-fs-read=/run/WSL',
      `--allow-fs-write=${tmpdir()}`,
      '--input-type=module',
      '--eval',
      runnerSource,
    ],
    {
      env: {
        TRAWL_PLAYWRIGHT_URL: playwrightUrl,
        TRAWL_CDP_URL: cdpEndpoint,
        PATH: process.env['PATH'] ?? '',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  const output = { stdout: '', stderr: '', truncated: false };
  const collect = (name: 'stdout' | 'stderr') => (chunk: Buffer) => {
    if (output[name].length + chunk.length > maxOutputBytes) {
      output.truncated = true;
      output[name] += chunk.toString('utf8', 0, Math.max(0, maxOutputBytes - output[name].length));
    } else {
      output[name] += chunk.toString('utf8');
    }
  };
  child.stdout.on('data', collect('stdout'));
  child.stderr.on('data', collect('stderr'));
  child.stdin.end(code);
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      const stdout = output.stdout.trimEnd();
      const stderr = output.stderr.trimEnd();
      const failed = killed || exitCode !== 0;
      const error = killed
        ? `The code ran longer than ${timeoutMs / 1000} s and was stopped`
        : failed
          ? (stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ??
            stderr.split('\n')[0] ??
            'The code failed')
          : undefined;
      resolve({
        success: true,
        result: stdout,
        stdout,
        stderr,
        exitCode: exitCode ?? 137,
        killed,
        truncated: output.truncated,
        ...(error ? { error } : {}),
      });
    });
  });
}
