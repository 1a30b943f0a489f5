/**
 * Options of `agent()` (the SDK's `startAgent()` body, reference-behaviour (a)): what
 * to collect, where to look, and how much it may cost. The single home of the agent's per-request
 * defaults, and of the budgets that `effort` stands for.
 */
import { z } from 'zod';
import { hostedOnlyShape } from '../scrape/options.ts';

/** Longest prompt, in characters (the hosted service's limit). */
export const maxAgentPromptChars = 10_000;

/**
 * What each `effort` allows one run: model steps (one model call and the tools it asks for) and
 * pages read (each scraped page, and each page an `extract` reads). Documented in the README.
 */
export const effortBudgets = {
  low: { maxSteps: 8, maxPages: 10 },
  medium: { maxSteps: 20, maxPages: 30 },
  high: { maxSteps: 40, maxPages: 100 },
} as const satisfies Record<string, { maxSteps: number; maxPages: number }>;

/** One of the efforts. */
export type AgentEffort = keyof typeof effortBudgets;

export const agentOptionsShape = {
  prompt: z
    .string()
    .trim()
    .min(1, 'prompt is required')
    .max(maxAgentPromptChars)
    .describe('What to find and collect, in words.'),
  urls: z
    .array(z.string().min(1).max(8192))
    .max(100)
    .optional()
    .describe('Pages or sites to start from (with strictConstrainToURLs, the only ones read).'),
  schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema of the answer; the final answer is validated against it.'),
  maxCredits: z
    .number()
    .int()
    .positive()
    .optional()
    .describe(
      'Most credits the run may spend (pages, searches, maps and LLM tokens); it answers with what it has before passing them.',
    ),
  strictConstrainToURLs: z
    .boolean()
    .default(false)
    .describe('Read only the given URLs and the pages under their paths; search results too.'),
  model: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Recorded as asked; the model that runs is the one the server is configured with.'),
  /**
   * The step and page budget (see `effortBudgets`). Unset runs as `medium` and is reported unset.
   */
  effort: z
    .enum(['low', 'medium', 'high'])
    .optional()
    .describe('low: 8 steps / 10 pages; medium (default): 20 / 30; high: 40 / 100.'),
  mode: z
    .literal('extract', {
      error: "mode 'chat' is not offered by this engine; leave mode out or send 'extract'",
    })
    .optional()
    .describe('Only extract: collect data to the schema.'),
  ...hostedOnlyShape,
} as const;

export const agentOptionsSchema = z
  .strictObject(agentOptionsShape)
  .refine((options) => !options.strictConstrainToURLs || (options.urls?.length ?? 0) > 0, {
    message: 'strictConstrainToURLs needs urls to constrain the run to',
    path: ['strictConstrainToURLs'],
  });

/** What callers pass to `agent()`. */
export type AgentOptions = z.input<typeof agentOptionsSchema>;
/** Agent options with defaults applied. */
export type ResolvedAgentOptions = z.output<typeof agentOptionsSchema>;

/** The step and page budget of resolved options. */
export function budgetOf(options: ResolvedAgentOptions): { maxSteps: number; maxPages: number } {
  return effortBudgets[options.effort ?? 'medium'];
}
