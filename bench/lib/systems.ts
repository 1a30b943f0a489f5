// The extractors under comparison, each reduced to "HTML in, markdown out".

import { Readability } from '@mozilla/readability';
import { JSDOM, VirtualConsole } from 'jsdom';
import TurndownService from 'turndown';

/**
 * The signature the benchmark relies on. Declared here rather than taken from the package so the
 * harness keeps working (and reports "unavailable") while packages/core is being rewritten.
 */
export type HtmlToDocument = (
  html: string,
  options: { url: string; onlyMainContent?: boolean; formats?: string[] },
) => { markdown?: string; html?: string; links?: string[]; metadata: Record<string, unknown> };

export type Extract = (html: string, url: string) => string;

export interface System {
  name: string;
  extract: Extract;
}

export type TrawlLoad =
  { ok: true; htmlToDocument: HtmlToDocument } | { ok: false; reason: string; fatal: boolean };

/**
 * Imports `@trawl/core` at run time. A missing package or export is reported, not thrown, so the
 * baselines can be measured on their own; any other load failure (a syntax or type error in the
 * engine) is fatal because it would otherwise hide a broken build behind "unavailable".
 */
export async function loadTrawl(): Promise<TrawlLoad> {
  // A variable specifier keeps TypeScript from resolving the module, so the bench type-checks
  // whatever state packages/core is in.
  const specifier: string = '@trawl/core';
  let mod: Record<string, unknown>;
  try {
    mod = (await import(specifier)) as Record<string, unknown>;
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const missing =
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') &&
      String((err as Error).message).includes('@trawl/core');
    return { ok: false, reason: `cannot import @trawl/core: ${String(err)}`, fatal: !missing };
  }
  const fn = mod['htmlToDocument'];
  if (typeof fn !== 'function')
    return { ok: false, reason: '@trawl/core does not export htmlToDocument yet', fatal: false };
  return { ok: true, htmlToDocument: fn as HtmlToDocument };
}

export function trawlSystem(htmlToDocument: HtmlToDocument): System {
  return {
    name: 'trawl',
    extract: (html, url) =>
      htmlToDocument(html, { url, onlyMainContent: true, formats: ['markdown'] }).markdown ?? '',
  };
}

// jsdom reports CSS it cannot parse on the virtual console; that noise says nothing about the page.
const quietConsole = new VirtualConsole();

/**
 * Mozilla Readability as its users run it in Node: jsdom document, `parse()`, turndown on the
 * article HTML, with the article title prepended as a heading (Readability strips it from
 * `content`).
 */
export const readabilitySystem: System = {
  name: 'readability',
  extract: (html, url) => {
    const dom = new JSDOM(html, { url, virtualConsole: quietConsole });
    try {
      const article = new Readability(dom.window.document).parse();
      if (!article) return '';
      const body = new TurndownService().turndown(article.content ?? '');
      return article.title ? `# ${article.title}\n\n${body}` : body;
    } finally {
      dom.window.close();
    }
  },
};

/** The floor: the whole page through turndown, scripts, navigation and all. */
export const turndownSystem: System = {
  name: 'turndown',
  extract: (html) => new TurndownService().turndown(html),
};
