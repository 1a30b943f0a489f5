/**
 * What callers send to browser sessions and what they get back: the bodies of `POST /v2/browser`
 * and `POST /v2/browser/{id}/execute` (zod shapes shared with the server), the run's answer and
 * the listing entry, as the hosted service has them.
 */
import { z } from 'zod';
import { actionsSchema } from './actions.ts';

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
