/**
 * `trawl agent "<prompt>"`: the agent of `POST /v2/agent` on this machine, with the
 * configured model, the built-in index of what was scraped here (and SearXNG when configured),
 * and the page cache. Its steps show live on stderr; the answer is printed as JSON on stdout.
 */
import { agent, SearxngProvider, type AgentOptions } from '@trawl/core';
import { loadConfig } from '../config.ts';
import { AgentView } from './agent-view.ts';
import { parseFlags, UsageError } from './args.ts';
import type { Command } from './index.ts';
import { llmOf, readJsonFile } from './llm-flags.ts';
import { toInteger } from './page-flags.ts';
import { openStore } from './store.ts';

const usage = `Usage: trawl agent "<prompt>" [options]

Finds the pages, reads them and answers the prompt as JSON, with the configured model calling
search, map, scrape and extract as it sees fit. Steps show on stderr as they happen.

Options:
  --url <url>            a page or site to start from (repeatable)
  --strict               read only the --url pages and the pages under their paths
  --schema <file>        JSON Schema file of the answer
  --max-credits <n>      stop before spending more credits, and answer with what was found
  --effort <level>       low (8 steps, 10 pages), medium (default: 20, 30), high (40, 100)
  -q, --quiet            no live view; only the answer and errors
  -h, --help             show this help

Needs an LLM that can call tools: TRAWL_LLM_BASE_URL and TRAWL_LLM_MODEL (OpenAI, or a local
Ollama, llama.cpp server or vLLM). Search reads the pages scraped on this machine, and the web
through TRAWL_SEARXNG_URL when set.

Examples:
  trawl agent 'founders of example.com' --url https://example.com --max-credits 50
`;

const efforts = ['low', 'medium', 'high'] as const;

/** The agent command. */
export const agentCommand: Command = {
  usage,
  async run(args, io) {
    const { values, positionals } = parseFlags(args, {
      url: { type: 'string', multiple: true },
      strict: { type: 'boolean' },
      schema: { type: 'string' },
      'max-credits': { type: 'string' },
      effort: { type: 'string' },
      quiet: { type: 'boolean', short: 'q' },
    });
    if (positionals.length === 0) throw new UsageError('give a prompt');
    const effort = values.effort;
    if (effort !== undefined && !efforts.includes(effort as (typeof efforts)[number]))
      throw new UsageError(`--effort takes low, medium or high (got '${effort}')`);
    const options: AgentOptions = {
      prompt: positionals.join(' '),
      ...(values.url ? { urls: values.url } : {}),
      ...(values.strict ? { strictConstrainToURLs: true } : {}),
      ...(values.schema !== undefined ? { schema: readJsonFile(values.schema, '--schema') } : {}),
      ...(values['max-credits'] !== undefined
        ? { maxCredits: toInteger(values['max-credits'], '--max-credits', 'credits') }
        : {}),
      ...(effort ? { effort: effort as (typeof efforts)[number] } : {}),
    };
    const config = loadConfig({ role: 'cli', env: io.env });
    const llm = llmOf(config);
    const view = values.quiet ? undefined : new AgentView(io);
    const store = await openStore(config);
    try {
      const searxng = config.server.searxngUrl;
      const result = await agent(options, {
        store,
        config: config.engine,
        providers: searxng ? [new SearxngProvider({ url: searxng })] : [],
        ...(llm ? { llm } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
        ...(view ? { onEvent: view.onEvent } : {}),
      });
      view?.stop();
      for (const warning of result.warnings) io.stderr(`trawl agent: warning: ${warning}\n`);
      if (!values.quiet)
        io.stderr(
          `${result.status}${result.partial ? ' (partial)' : ''}: ${result.steps} steps, ${result.sources.length} pages, ${result.usage.inputTokens + result.usage.outputTokens} tokens, ${result.credits.total} credits\n`,
        );
      if (result.status === 'failed') {
        io.stderr(`trawl agent: ${result.error ?? 'the run failed'}\n`);
        return 1;
      }
      io.stdout(`${JSON.stringify(result.data, null, 2)}\n`);
      return 0;
    } catch (error) {
      view?.stop();
      if (io.signal?.aborted) {
        io.stderr('Interrupted.\n');
        return 130;
      }
      throw error;
    } finally {
      await store.close();
    }
  },
};
