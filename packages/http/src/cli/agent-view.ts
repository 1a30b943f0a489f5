/**
 * The live view of `trawl agent`: on a terminal, one line redrawn as the run goes —
 * step, tool, URL or query, tokens and credits so far; elsewhere (a pipe, a log file) one plain
 * line per tool call, which reads well after the fact.
 */
import type { AgentTraceEvent } from '@trawl/core';
import type { CliIo } from './index.ts';

/** What a tool call was about, in a few words: its URL, URLs or query. */
function targetOf(parameters: unknown): string {
  const args = (parameters ?? {}) as { url?: unknown; urls?: unknown; query?: unknown };
  if (typeof args.url === 'string') return args.url;
  if (Array.isArray(args.urls)) return `${args.urls.length} page(s)`;
  if (typeof args.query === 'string') return `'${args.query}'`;
  return '';
}

/** Draws a run's events on stderr. */
export class AgentView {
  readonly #io: CliIo;
  readonly #tty: boolean;
  #tokens = 0;
  #credits = 0;
  #step = 0;
  #drawn = false;

  constructor(io: CliIo) {
    this.#io = io;
    this.#tty = io.stderrIsTTY === true;
  }

  /** Takes one event of the run. */
  onEvent = (event: AgentTraceEvent): void => {
    if (event.type === 'progress.reported') {
      this.#step = event.step;
      this.#tokens += event.tokens.inputTokens + event.tokens.outputTokens;
      this.#credits = event.creditsUsed;
      return;
    }
    if (event.type === 'tool_call.started' && this.#tty)
      this.#line(`${event.toolName} ${targetOf(event.parameters)}`);
    if (event.type === 'tool_call.finished') {
      this.#tokens += event.result.tokens.inputTokens + event.result.tokens.outputTokens;
      this.#credits += event.result.credits;
      const text = `${event.toolName}: ${event.result.summary}`;
      if (this.#tty) this.#line(text);
      else this.#io.stderr(`${this.#status()} ${text}\n`);
    }
  };

  /** Ends the redrawn line, so what follows starts on its own. */
  stop(): void {
    if (this.#tty && this.#drawn) this.#io.stderr('\n');
    this.#drawn = false;
  }

  #status(): string {
    return `step ${this.#step} · ${this.#tokens.toLocaleString('en')} tokens · ${this.#credits} credits ·`;
  }

  #line(text: string): void {
    const columns = process.stderr.columns || 100;
    const line = `${this.#status()} ${text}`.slice(0, columns - 1);
    this.#io.stderr(`\r\x1b[2K${line}`);
    this.#drawn = true;
  }
}
