/**
 * Browser actions (`actions` in ScrapeOptions), as the hosted service defines them
 * (reference-behaviour (c), "Actions"): run in order on the loaded page, before the content is
 * captured. Each action is one zod shape here and one case in `runActions`.
 */
import type { Page } from 'playwright-core';
import { z } from 'zod';
import { ActionError } from '../errors.ts';
import { readPageHtml } from './page-limits.ts';
import { firstLine } from './pool.ts';

/** The `scrape` action's HTML stops at the default body limit, as a fetched page's does. */
const maxScrapeActionChars = 20 * 1024 * 1024;

/** Largest screenshot viewport the hosted service accepts. */
const viewportSchema = z.strictObject({
  width: z.number().int().min(1).max(7680),
  height: z.number().int().min(1).max(4320),
});

/** Screenshot settings, shared by the `screenshot` action and the `screenshot` format. */
export const screenshotShape = {
  /** The whole scrollable page rather than the viewport. @default false */
  fullPage: z.boolean().default(false),
  /** JPEG quality 1–100; without it the screenshot is a PNG. */
  quality: z.number().int().min(1).max(100).optional(),
  /** Viewport to set before the shot. @default 1920 × 1080 (the pool's desktop viewport) */
  viewport: viewportSchema.optional(),
};

const pdfFormats = [
  'A0',
  'A1',
  'A2',
  'A3',
  'A4',
  'A5',
  'A6',
  'Letter',
  'Legal',
  'Tabloid',
  'Ledger',
] as const;

const waitAction = z.strictObject({
  type: z.literal('wait'),
  /** Wait this long, in ms. */
  milliseconds: z.number().int().min(1).max(60_000).optional(),
  /** Wait until an element matching this CSS selector is visible. */
  selector: z.string().min(1).max(1000).optional(),
});

/** One browser action. */
export const actionSchema = z.discriminatedUnion('type', [
  waitAction,
  z.strictObject({
    type: z.literal('click'),
    selector: z.string().min(1).max(1000),
    /** Click every match, and do not fail when there is none. @default false */
    all: z.boolean().default(false),
  }),
  z.strictObject({
    type: z.literal('write'),
    /** Typed into the focused element: click the field first. */
    text: z.string().max(100_000),
  }),
  z.strictObject({
    type: z.literal('press'),
    /** A key name as Playwright knows it: `Enter`, `Tab`, `ArrowDown`, `Control+A` … */
    key: z.string().min(1).max(100),
  }),
  z.strictObject({
    type: z.literal('scroll'),
    direction: z.enum(['up', 'down']).default('down'),
    /** Scroll this element instead of the page. */
    selector: z.string().min(1).max(1000).optional(),
  }),
  z.strictObject({ type: z.literal('screenshot'), ...screenshotShape }),
  z.strictObject({ type: z.literal('scrape') }),
  z.strictObject({
    type: z.literal('executeJavascript'),
    /** An expression, or statements with `return`; a promise is awaited. */
    script: z.string().min(1).max(100_000),
  }),
  z.strictObject({
    type: z.literal('pdf'),
    format: z.enum(pdfFormats).default('Letter'),
    landscape: z.boolean().default(false),
    scale: z.number().min(0.1).max(2).default(1),
  }),
]);

/** An action as callers write it. */
export type BrowserActionInput = z.input<typeof actionSchema>;
/** An action with its defaults applied. */
export type BrowserAction = z.output<typeof actionSchema>;

/** The `actions` list: at most 50, each wait with exactly one of milliseconds and selector. */
export const actionsSchema = z
  .array(actionSchema)
  .max(50)
  .superRefine((actions, context) => {
    actions.forEach((action, index) => {
      if (
        action.type === 'wait' &&
        (action.milliseconds === undefined) === (action.selector === undefined)
      ) {
        context.addIssue({
          code: 'custom',
          path: [index],
          message: 'a wait action takes exactly one of milliseconds and selector',
        });
      }
    });
  });

/** A captured image or PDF, before it becomes a URL (server) or a data URI (library). */
export interface CapturedFile {
  bytes: Uint8Array;
  contentType: 'image/png' | 'image/jpeg' | 'application/pdf';
  /** What the caller should know: a full-page screenshot cut at `maxFullPageHeight`. */
  warning?: string;
}

/** What the actions produced, in order, files still as bytes. */
export interface ActionResults {
  screenshots: CapturedFile[];
  scrapes: { url: string; html: string }[];
  javascriptReturns: { type: string; value: unknown }[];
  pdfs: CapturedFile[];
}

/** Time kept back from each action's wait, so that the action, not the scrape, times out. */
const actionMarginMs = 750;

/** Milliseconds of waiting the actions ask for (for the 60-second cap on waits). */
export function waitedMs(actions: readonly BrowserAction[]): number {
  return actions.reduce(
    (total, action) => total + (action.type === 'wait' ? (action.milliseconds ?? 0) : 0),
    0,
  );
}

/**
 * Runs the actions on a loaded page, in order, within `deadline` (ms since the epoch).
 *
 * @throws SCRAPE_ACTION_ERROR naming the index and type of the action that failed
 */
export async function runActions(
  page: Page,
  actions: readonly BrowserAction[],
  deadline: number,
): Promise<ActionResults> {
  const results: ActionResults = { screenshots: [], scrapes: [], javascriptReturns: [], pdfs: [] };
  for (const [index, action] of actions.entries()) {
    // An action gives up a moment before the scrape does, so its own error names it.
    const timeout = Math.max(1, deadline - Date.now() - actionMarginMs);
    try {
      await runAction(page, action, timeout, results);
    } catch (error) {
      throw new ActionError(index, action.type, describeFailure(error, timeout), { cause: error });
    }
  }
  return results;
}

async function runAction(
  page: Page,
  action: BrowserAction,
  timeout: number,
  results: ActionResults,
): Promise<void> {
  switch (action.type) {
    case 'wait':
      if (action.selector !== undefined) {
        await page.waitForSelector(action.selector, { state: 'visible', timeout });
      } else {
        await page.waitForTimeout(Math.min(action.milliseconds ?? 0, timeout));
      }
      return;
    case 'click':
      if (action.all) {
        // Every match, in document order; none at all is not an error (hosted behaviour).
        for (const element of await page.locator(action.selector).all()) {
          await element.click({ timeout });
        }
      } else {
        await page.locator(action.selector).first().click({ timeout });
      }
      return;
    case 'write':
      await page.keyboard.type(action.text);
      return;
    case 'press':
      await page.keyboard.press(action.key);
      return;
    case 'scroll':
      await scroll(page, action.direction, action.selector, timeout);
      return;
    case 'screenshot':
      results.screenshots.push(await takeScreenshot(page, action, timeout));
      return;
    case 'scrape':
      results.scrapes.push({
        url: page.url(),
        html: await readPageHtml(page, new URL(page.url()), maxScrapeActionChars),
      });
      return;
    case 'executeJavascript':
      results.javascriptReturns.push(await evaluateScript(page, action.script));
      return;
    case 'pdf':
      results.pdfs.push({
        bytes: await page.pdf({
          format: action.format,
          landscape: action.landscape,
          scale: action.scale,
          printBackground: true,
        }),
        contentType: 'application/pdf',
      });
      return;
  }
}

/** Scrolls the page (or an element) by one viewport height. */
async function scroll(
  page: Page,
  direction: 'up' | 'down',
  selector: string | undefined,
  timeout: number,
): Promise<void> {
  const sign = direction === 'down' ? 1 : -1;
  // In-page code as source text: core does not compile against the DOM library.
  if (selector === undefined) {
    await page.evaluate(`window.scrollBy(0, ${sign} * window.innerHeight)`);
  } else {
    await page.locator(selector).first().waitFor({ state: 'attached', timeout });
    const element = `document.querySelector(${JSON.stringify(selector)})`;
    await page.evaluate(`${element}.scrollBy(0, ${sign} * ${element}.clientHeight)`);
  }
  // Lazy content loads on the scroll event: give it a frame to react.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => resolve(null)))');
}

/** A screenshot of the page as it is now; `viewport` resizes the page first. */
export async function takeScreenshot(
  page: Page,
  settings: {
    fullPage: boolean;
    quality?: number | undefined;
    viewport?: { width: number; height: number } | undefined;
  },
  timeout: number,
): Promise<CapturedFile> {
  if (settings.viewport) await page.setViewportSize(settings.viewport);
  const jpeg = settings.quality !== undefined;
  const full = settings.fullPage ? await fullPageSize(page) : undefined;
  const clip =
    full && full.height > maxFullPageHeight
      ? { x: 0, y: 0, width: full.width, height: maxFullPageHeight }
      : undefined;
  const bytes = await page.screenshot({
    fullPage: settings.fullPage,
    type: jpeg ? 'jpeg' : 'png',
    ...(settings.quality !== undefined ? { quality: settings.quality } : {}),
    ...(clip ? { clip } : {}),
    timeout,
  });
  return {
    bytes,
    contentType: jpeg ? 'image/jpeg' : 'image/png',
    ...(clip && full
      ? {
          warning: `The page is ${full.height.toLocaleString('en-US')} pixels tall; the full-page screenshot shows its top ${maxFullPageHeight.toLocaleString('en-US')}.`,
        }
      : {}),
  };
}

/**
 * A full-page screenshot stops this far down: a page 200,000 pixels tall is 1.5 GB of pixels in
 * Chromium and an image of tens of MB sent back through the thread that answers requests.
 * 16,384 px is the tallest image Chromium's compositor draws in one piece anyway.
 */
export const maxFullPageHeight = 16_384;

/** The page's width and full height, in CSS pixels. */
function fullPageSize(page: Page): Promise<{ width: number; height: number }> {
  return page.evaluate<{ width: number; height: number }>(
    `({ width: document.documentElement.clientWidth, height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0) })`,
  );
}

/**
 * Evaluates a script: as an expression first (`document.title`), then, when that is not valid
 * syntax, as the body of an async function (`const a = 1; return a`). Runtime.evaluate is not
 * bound by the page's Content-Security-Policy, so this works where `eval` is forbidden.
 */
async function evaluateScript(
  page: Page,
  script: string,
): Promise<{ type: string; value: unknown }> {
  let value: unknown;
  try {
    value = await page.evaluate(script);
  } catch (error) {
    if (!/SyntaxError|Illegal return|Unexpected token/i.test(firstLine(error))) throw error;
    value = await page.evaluate(`(async () => {\n${script}\n})()`);
  }
  return {
    type: value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value,
    value: value ?? null,
  };
}

function describeFailure(error: unknown, timeoutMs: number): string {
  const message = firstLine(error).replace(/^[a-zA-Z.]+: /, '');
  if (/Timeout \d+ms exceeded/.test(message)) {
    return `did not complete within the ${timeoutMs} ms left of the scrape's timeout (${message})`;
  }
  return message;
}
