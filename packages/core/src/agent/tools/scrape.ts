/**
 * `scrape`: one page through the same pipeline as `/v2/scrape` (page cache, address guard,
 * browser when the page needs one), read as the markdown of its main content, or, given a
 * `schema` or `prompt`, as JSON read off the page by the LLM formats' extractor. Each page counts
 * against the page budget and its credits are checked first.
 */
import { z } from 'zod';
import { toTrawlError } from '../../errors.ts';
import { scrape } from '../../scrape/index.ts';
import { compileSchema } from '../../llm/schema.ts';
import { creditsRefusal, failed, refused, type AgentTool, type ToolEnv } from './types.ts';

const args = z.strictObject({
  url: z.string().min(1).max(8192).describe('The page to read.'),
  schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema: read this data off the page as JSON instead of its text.'),
  prompt: z.string().min(1).max(2000).optional().describe('What to read off the page as JSON.'),
});

const parameters = z.toJSONSchema(args, { io: 'input' });

/** Tokens one page read as JSON may take: one call and its retry, each a full context. */
export const jsonPageTokens = (env: ToolEnv) => 2 * env.engine.config.llmContextTokens;

/** The engine's check of a page's final URL against a constrained run's URLs. */
export function pageScope(env: ToolEnv): { refusePage?: (finalUrl: string) => string | undefined } {
  if (!env.scope.isConstrained) return {};
  return {
    refusePage: (finalUrl) =>
      env.scope.allows(finalUrl) ? undefined : env.scope.refusal(finalUrl),
  };
}

export const scrapeTool: AgentTool<typeof args> = {
  name: 'scrape',
  description:
    "Read one page: its main content as markdown, or, with 'schema' and/or 'prompt', the data it holds as JSON. Each call reads one page of the page budget.",
  args,
  parameters: () => parameters,
  async run({ url, schema, prompt }, env) {
    if (!env.scope.allows(url)) return refused(env.scope.refusal(url));
    if (env.budget.pagesLeft < 1)
      return refused(
        `the page budget of this run (${env.budget.limits.maxPages} pages) is spent. Call finish with what you have.`,
        'pages',
      );
    const asJson = schema !== undefined || prompt !== undefined;
    if (schema) {
      try {
        compileSchema(schema, ['schema']);
      } catch (error) {
        return refused(`the schema is not valid JSON Schema: ${(error as Error).message}`);
      }
    }
    if (!env.budget.fits({ pages: 1, tokens: asJson ? jsonPageTokens(env) : 0 }, env.reserveTokens))
      return creditsRefusal('Reading another page');
    let doc;
    try {
      doc = await scrape(
        url,
        {
          formats: asJson
            ? [{ type: 'json', ...(schema ? { schema } : {}), ...(prompt ? { prompt } : {}) }]
            : ['markdown'],
        },
        {
          ...env.engine,
          // One chunk per page: the page's cost stays within what was checked above.
          config: { ...env.engine.config, llmMaxChunksPerPage: 1 },
          ...(asJson ? { llm: env.llm, onLlmUsage: env.onToolUsage } : {}),
          // A redirect out of the run's URLs is refused before the page is read (or sent to
          // the model as JSON).
          ...pageScope(env),
        },
      );
    } catch (error) {
      // A bad URL, a blocked address, a dead page: the model is told, and may try another.
      const failure = toTrawlError(error);
      return failed(`${url}: ${failure.code}: ${failure.message}`);
    }
    const finalUrl = doc.metadata.url || url;
    // A redirect may lead out of the allowed URLs: its text is not shown.
    if (!env.scope.allows(finalUrl)) return refused(env.scope.refusal(finalUrl));
    env.pagesRead.push(url);
    env.citable.add(url);
    env.citable.add(finalUrl);
    const status = doc.metadata.statusCode;
    const title = doc.metadata.title ?? '';
    let body: string;
    if (asJson) body = JSON.stringify(doc.json ?? null);
    else {
      const markdown = doc.markdown ?? '';
      body =
        markdown.length > env.maxPageChars
          ? `${markdown.slice(0, env.maxPageChars)}\n\n[… ${markdown.length - env.maxPageChars} more characters not shown; ask with 'schema' or 'prompt' to read specific data]`
          : markdown;
    }
    return {
      ok: true,
      content: `URL: ${finalUrl}\nTitle: ${title}\nStatus: ${status}\n\n${body}`,
      summary: `${finalUrl} (${status}${asJson ? ', json' : `, ${body.length} chars`})`,
      pages: [finalUrl],
      spend: { pages: 1 },
    };
  },
};
