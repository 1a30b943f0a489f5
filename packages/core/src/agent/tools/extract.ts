/**
 * `extract`: the LLM formats' extractor (`extract()`) over a few pages at once, one
 * merged JSON answer with the pages each field came from. Wildcards are not taken here: the model
 * maps first, so that every page read is counted against the page budget before it is read.
 */
import { z } from 'zod';
import { extract } from '../../extract/index.ts';
import { toTrawlError } from '../../errors.ts';
import { compileSchema } from '../../llm/schema.ts';
import { jsonPageTokens, pageScope } from './scrape.ts';
import { creditsRefusal, failed, refused, type AgentTool } from './types.ts';

const args = z.strictObject({
  urls: z.array(z.string().min(1).max(8192)).min(1).max(10).describe('The pages to read (1-10).'),
  prompt: z.string().min(1).max(2000).describe('What to read off them.'),
  schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of the answer.'),
});

const parameters = z.toJSONSchema(args, { io: 'input' });

export const extractTool: AgentTool<typeof args> = {
  name: 'extract',
  description:
    'Read the same data off several pages at once with the extractor; answers one merged JSON and which pages gave each field. Each URL reads one page of the page budget.',
  args,
  parameters: () => parameters,
  async run({ urls, prompt, schema }, env) {
    const unique = [...new Set(urls)];
    const wildcard = unique.find((url) => url.endsWith('*'));
    if (wildcard)
      return refused(`${wildcard}: wildcards are not taken here; list the pages with map first.`);
    const outside = unique.find((url) => !env.scope.allows(url));
    if (outside) return refused(env.scope.refusal(outside));
    if (unique.length > env.budget.pagesLeft)
      return refused(
        `${unique.length} pages would pass the page budget (${env.budget.pagesLeft} left of ${env.budget.limits.maxPages}).${env.budget.pagesLeft > 0 ? ' Ask for fewer pages' : ' Call finish with what you have'}.`,
        env.budget.pagesLeft > 0 ? undefined : 'pages',
      );
    if (schema) {
      try {
        compileSchema(schema, ['schema']);
      } catch (error) {
        return refused(`the schema is not valid JSON Schema: ${(error as Error).message}`);
      }
    }
    const estimate = { pages: unique.length, tokens: unique.length * jsonPageTokens(env) };
    if (!env.budget.fits(estimate, env.reserveTokens)) return creditsRefusal('This extract');
    let result;
    try {
      result = await extract(
        { urls: unique, prompt, ...(schema ? { schema } : {}), showSources: true },
        {
          ...env.engine,
          config: { ...env.engine.config, llmMaxChunksPerPage: 1 },
          llm: env.llm,
          onLlmUsage: env.onToolUsage,
          // A listed page may redirect out of the run's URLs: the extractor must not read it.
          ...pageScope(env),
        },
      );
    } catch (error) {
      const failure = toTrawlError(error);
      return failed(`extract: ${failure.code}: ${failure.message}`);
    }
    env.pagesRead.push(...result.pages);
    for (const page of result.pages) env.citable.add(page);
    const notes = result.warnings.length ? `\nNotes: ${result.warnings.join(' ')}` : '';
    return {
      ok: true,
      content: `${JSON.stringify({ data: result.data, sources: result.sources ?? {} })}${notes}`,
      summary: `${result.pages.length} of ${unique.length} page(s) read`,
      pages: result.pages,
      spend: { pages: result.pages.length },
    };
  },
};
