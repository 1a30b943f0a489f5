/**
 * Interactive browser sessions (`/v2/browser`, the official SDK's `browser()`, `browserExecute()`,
 * `listBrowsers()`, `deleteBrowser()`): a Chromium of its own per session, driven over the Chrome
 * DevTools Protocol by the caller (`chromium.connectOverCDP`) or by code the session runs.
 *
 * Each session is a separate Chromium process: a CDP client reaches everything in the browser it
 * connects to, so sessions must share nothing with each other or with the scrape pool. Its only
 * DevTools connection is a pipe held by the session's relay (no port, no `DevToolsActivePort`),
 * and every client goes through that relay, which refuses what would read the server's files
 *. With `addressGuard`, the whole Chromium is launched behind a guard proxy of the
 * session's own, so that no client can reach loopback or private addresses through it, whatever
 * it makes the browser load. A session ends when deleted, after `ttl` seconds in all, or after `activityTtl`
 * seconds without activity; its profile (when it has one with `saveChanges`) is saved when it ends.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import type { z } from 'zod';
import {
  FetchError,
  NotConfiguredError,
  NotFoundError,
  RateLimitError,
  TrawlError,
} from '../errors.ts';
import type { Store } from '../interfaces/store.ts';
import { runActions, type actionsSchema, type CapturedFile } from './actions.ts';
import { CdpRelay, type CdpPeer } from './cdp-relay.ts';
import { ChromiumPipe } from './chromium-pipe.ts';
import { findChromium, type ChromiumLookup } from './find-chromium.ts';
import { loadPlaywright } from './playwright.ts';
import {
  launchProxyArgs,
  startGuardProxy,
  type GuardProxy,
  type GuardProxyOptions,
} from './guard-proxy.ts';
import { firstLine } from './pool.ts';
import { BrowserProfiles } from './profiles.ts';
import { runSessionCode } from './session-code.ts';
import {
  browserExecuteSchema,
  browserSessionCreateSchema,
  type BrowserExecuteInput,
  type BrowserExecuteResult,
  type BrowserSessionCreateInput,
  type BrowserSessionInfo,
} from './session-options.ts';
import { SessionSocket } from './session-socket.ts';

/** A running session, with what the server needs to connect a CDP client. */
export interface BrowserSession extends BrowserSessionInfo {
  team: string;
  /** Secret that lets a CDP client in without the API key (it is in the cdpUrl). */
  token: string;
  /** The session's relay as a loopback WebSocket, with the token (never Chromium itself). */
  cdpEndpoint: string;
  /** The server's own Playwright view of the browser, for actions and profiles. */
  context: BrowserContext | undefined;
  /** The session's folder (mode 0700): Chromium's profile, downloads, runs' scratch folders. */
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
  /**
   * Whether `execute` runs code (`node`: in a child Node process under the permission model) or
   * refuses it (`off`; actions still run). @default 'off'
   */
  execute?: BrowserExecuteMode;
  /**
   * When set, each session's browser reaches the network only through a guard proxy of its own
   * with these options (private addresses refused, `upstream` chained to), as guarded scrapes
   * do; its clients may not give a context another proxy. Unset: sessions reach whatever the
   * machine reaches. The server sets it unless private addresses are allowed.
   */
  addressGuard?: GuardProxyOptions | undefined;
  /** How often expiry is checked, in ms. @default 1000 */
  sweepMs?: number;
}

/** Whether sessions run code: `off` (the default) or `node`. */
export type BrowserExecuteMode = 'off' | 'node';

/** Destroyed sessions listed per team (`?status=destroyed`). */
const keptDestroyed = 50;
/** Longest wait for a session's Chromium to answer. */
const startTimeoutMs = 30_000;

/** What the registry keeps of a session besides what callers see. */
interface SessionParts {
  relay: CdpRelay;
  pipe: ChromiumPipe;
  /** The session's guard proxy, which all of its Chromium's connections go through. */
  proxy: GuardProxy | undefined;
  /** The server's own Playwright connection (actions, profiles). */
  browser: Browser | undefined;
}

/** The browser sessions of one server (or library user). Close it when done. */
export class BrowserSessions {
  readonly #options: BrowserSessionsOptions;
  readonly #sessions = new Map<string, BrowserSession>();
  /** Sessions' relays, from launch on (the socket serves a session while it starts, too). */
  readonly #parts = new Map<string, SessionParts & { token: string }>();
  readonly #destroyed = new Map<string, BrowserSessionInfo[]>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #socket = new SessionSocket((id) => this.#parts.get(id));

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
        'Browser sessions are turned off on this server (browserSessionsPerTeam is 0)',
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
    // mkdtemp makes it 0700: another user of the machine cannot look in; another session's
    // code (the same user) is kept out by the permission model instead.
    const root = await mkdtemp(join(tmpdir(), 'trawl-session-'));
    const folders = { profile: join(root, 'profile'), downloads: join(root, 'downloads') };
    await Promise.all(Object.values(folders).map((dir) => mkdir(dir, { mode: 0o700 })));
    const id = randomUUID();
    const token = randomBytes(24).toString('base64url');
    const guard = this.#options.addressGuard;
    const proxy = guard ? await startGuardProxy(guard) : undefined;
    const pipe = new ChromiumPipe({
      executablePath,
      userDataDir: folders.profile,
      extraArgs: [`--trawl-session=${id}`, ...(proxy ? launchProxyArgs(proxy) : [])],
    });
    const parts: SessionParts & { token: string } = {
      relay: new CdpRelay(pipe, { downloadsDir: folders.downloads, isNetworkGuarded: !!proxy }),
      pipe,
      proxy,
      browser: undefined,
      token,
    };
    this.#parts.set(id, parts);
    let cdpEndpoint: string;
    try {
      // Also the first sign of life: downloads are refused until a client asks for them (and
      // then land in the session's folder, see cdp-policy.ts).
      await withTimeout(
        parts.relay.call('Browser.setDownloadBehavior', { behavior: 'deny' }),
        startTimeoutMs,
      );
      cdpEndpoint = await this.#socket.urlOf(id, token);
      const { chromium } = await loadPlaywright();
      parts.browser = await chromium.connectOverCDP(cdpEndpoint, { timeout: startTimeoutMs });
      if (state) await parts.browser.contexts()[0]?.setStorageState(state);
    } catch (error) {
      this.#parts.delete(id);
      await parts.browser?.close().catch(() => undefined);
      await parts.relay.close();
      await proxy?.close();
      await rm(root, { recursive: true, force: true });
      const said = pipe.stderr ? ` (Chromium said: ${pipe.stderr.split('\n').at(-1)})` : '';
      throw new FetchError(
        `Chromium at ${executablePath} did not start for the session: ${firstLine(error)}${said}`,
        { cause: error },
      );
    }
    const now = new Date();
    const session: BrowserSession = {
      id,
      team,
      status: 'active',
      createdAt: now.toISOString(),
      lastActivity: now.toISOString(),
      expiresAt: new Date(now.getTime() + settings.ttl * 1000).toISOString(),
      streamWebView: settings.streamWebView,
      token,
      cdpEndpoint,
      context: parts.browser.contexts()[0],
      userDataDir: root,
      profile: settings.profile,
      activityTtlMs: settings.activityTtl * 1000,
    };
    this.#sessions.set(id, session);
    // Chromium gone (crash, kill): the session is over.
    void pipe.exited.then(() => this.#end(session));
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
    return given.length === expected.length && timingSafeEqual(given, expected)
      ? session
      : undefined;
  }

  /**
   * Connects a CDP client to the session's browser through its relay (the only way in):
   * `deliver` gets the messages for the client, `onClose` is called once when it is cut off.
   *
   * @throws NOT_FOUND for a session that ended
   */
  attach(
    session: BrowserSession,
    deliver: (message: string) => void,
    onClose: () => void,
  ): CdpPeer {
    const parts = this.#parts.get(session.id);
    if (!parts || session.status !== 'active') {
      throw new NotFoundError(`Browser session ${session.id} has ended`);
    }
    return parts.relay.attach(deliver, onClose);
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
   * Runs code (node only, when the registry's `execute` is `node`) or actions in the session's page.
   *
   * @throws NOT_FOUND for an unknown session; CAPABILITY_UNAVAILABLE for python or bash;
   * NOT_CONFIGURED for code while running code is off
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
      if ((this.#options.execute ?? 'off') !== 'node') {
        // Off by default: code runs on the server's machine, see the README.
        throw new NotConfiguredError(
          'Running code in browser sessions is off on this server: the operator turns it on with browserExecute set to node. Actions (execute with actions) and the cdpUrl still work',
          { details: [{ path: ['code'], message: 'code execution is off' }] },
        );
      }
      const scratchDir = await mkdtemp(join(session.userDataDir, 'run-'));
      try {
        return await runSessionCode({
          cdpUrl: session.cdpEndpoint,
          code: body.code ?? '',
          timeoutMs,
          scratchDir,
        });
      } finally {
        await rm(scratchDir, { recursive: true, force: true }).catch(() => undefined);
      }
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
    await this.#socket.close();
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
    const parts = this.#parts.get(session.id);
    session.context = undefined;
    session.status = 'destroyed';
    session.endedAt = new Date().toISOString();
    const destroyed = this.#destroyed.get(session.team) ?? [];
    destroyed.unshift(infoOf(session));
    this.#destroyed.set(session.team, destroyed.slice(0, keptDestroyed));
    if (context && session.profile?.saveChanges) {
      const state = await context.storageState().catch(() => undefined);
      if (state)
        await new BrowserProfiles(this.#options.store, session.team).save(
          session.profile.name,
          state,
        );
    }
    this.#parts.delete(session.id);
    await parts?.browser?.close().catch(() => undefined);
    await parts?.relay.close();
    await parts?.proxy?.close();
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

/** `promise`, or a rejection after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
