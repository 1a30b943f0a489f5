/**
 * How a monitor target's pages are compared (on markdown, on extracted JSON, or both), which
 * formats its scrapes ask for, and what a page costs.
 */
import type { PriceTable } from '../credits/prices.ts';
import type { JsonExtraction } from '../llm/extract-json.ts';
import type { FormatSpec, ScrapeOptions } from '../scrape/options.ts';
import type { Monitor } from './types.ts';

/** How a target's pages are compared: on markdown, on extracted JSON, or both. */
export interface Comparison {
  markdown: boolean;
  json: JsonExtraction | undefined;
  /** Formats handed to scrape(): markdown first, without what the monitor produces itself. */
  formats: FormatSpec[];
}

/**
 * Reads a target's formats: `json` and `changeTracking` (git-diff and/or json modes) are the
 * monitor's own work, not the scrape's. Markdown is always scraped (the hosted service prepends
 * it too): it is what pages are compared on unless only JSON is asked for.
 */
export function comparisonOf(scrapeOptions: ScrapeOptions | undefined): Comparison {
  const given = (scrapeOptions?.formats ?? ['markdown']).map((format) =>
    typeof format === 'string' ? { type: format } : format,
  );
  let json: JsonExtraction | undefined;
  let gitMode = false;
  for (const format of given) {
    const settings = format as FormatSpec & {
      schema?: Record<string, unknown>;
      prompt?: string;
      modes?: string[];
    };
    const extraction = {
      ...(settings.schema ? { schema: settings.schema } : {}),
      ...(settings.prompt ? { prompt: settings.prompt } : {}),
    };
    if (format.type === 'json') json = extraction;
    if (format.type === 'changeTracking') {
      const modes = settings.modes ?? [];
      if (modes.includes('json')) json = extraction;
      if (modes.length === 0 || modes.includes('git-diff')) gitMode = true;
    }
  }
  const formats = given.filter(
    (format) => format.type !== 'json' && format.type !== 'changeTracking',
  );
  if (!formats.some((format) => format.type === 'markdown')) formats.unshift({ type: 'markdown' });
  return { markdown: json === undefined || gitMode, json, formats };
}

/** Scrape options of a monitor page: always fresh (maxAge 0), the formats the comparison needs. */
export function pageOptions(scrapeOptions: ScrapeOptions | undefined, comparison: Comparison) {
  return { ...scrapeOptions, formats: comparison.formats, maxAge: 0 } as ScrapeOptions;
}

/** Credits one page costs: the monitor page price, dearer when a JSON extraction runs on it. */
export function creditsPerPage(comparison: Pick<Comparison, 'json'>, prices: PriceTable): number {
  return prices.monitorPage(comparison.json !== undefined);
}

/** Credits of `pages` scraped pages of a monitor, at the dearest rate of its targets. */
export function scrapedPagesCredits(monitor: Monitor, pages: number, prices: PriceTable): number {
  const rate = Math.max(
    prices.monitorPage(false),
    ...monitor.targets.map((target) =>
      target.type === 'search'
        ? prices.monitorPage(false)
        : creditsPerPage(comparisonOf(target.scrapeOptions as ScrapeOptions | undefined), prices),
    ),
  );
  return pages * rate;
}
