/**
 * The `trawl` command line: dispatches to one module per command. Every command has `--help`;
 * errors print one line to stderr and exit non-zero (1 for failures, 2 for usage errors).
 */
import { readFileSync } from 'node:fs';
import { toTrawlError, ValidationError } from '@trawl/core';
import { withSettingNames } from '../setting-names.ts';
import { nearestName, UsageError } from './args.ts';

/** One CLI command: the module a {@link CommandEntry} loads; its name is the entry's. */
export interface Command {
  usage: string;
  /** Runs the command; resolves with the exit code. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** Where a command writes; tests pass their own. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  /** Aborts on Ctrl-C; long commands stop, keep their work and return 130. */
  signal?: AbortSignal;
  /** Whether stderr is a terminal: progress redraws one line instead of printing many. */
  stderrIsTTY?: boolean;
  /**
   * Undefined while stdout takes what it is given; else a promise that settles once the output
   * held back for a slow reader has gone out (or stdout closed). Commands that print page after
   * page wait on it, so a reader slower than the crawl holds the printing back instead of the
   * process buffering every page it has not read yet.
   */
  stdoutBacklog?: () => Promise<void> | undefined;
}

/** A command as the main help lists it, and how to load it. */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

// Each command's module (and what it alone needs: the server with fastify, the queue with BullMQ,
// the LLM agent, the monitors) is imported only when that command runs. Loaded all at once they
// added ~15 MB to every command's V8 heap, which V8 then let grow about fourfold between full
// GCs over a long `trawl crawl`, and cost start-up time on every short command.
export const commands: readonly CommandEntry[] = [
  {
    name: 'scrape',
    summary: 'Scrape one page to markdown, html, links or JSON',
    load: async () => (await import('./scrape.ts')).scrapeCommand,
  },
  {
    name: 'crawl',
    summary: 'Crawl a whole site to JSON lines or markdown files; resumable',
    load: async () => (await import('./crawl.ts')).crawlCommand,
  },
  {
    name: 'batch',
    summary: 'Scrape a list of URLs as one job to JSON lines or markdown files; resumable',
    load: async () => (await import('./batch.ts')).batchCommand,
  },
  {
    name: 'map',
    summary: 'List the URLs of a site from sitemaps and links',
    load: async () => (await import('./map.ts')).mapCommand,
  },
  {
    name: 'parse',
    summary: 'Convert a local PDF, DOCX, XLSX or other document to markdown',
    load: async () => (await import('./parse.ts')).parseCommand,
  },
  {
    name: 'extract',
    summary: 'Extract one JSON answer from pages with an LLM',
    load: async () => (await import('./extract.ts')).extractCommand,
  },
  {
    name: 'agent',
    summary: 'Collect data for a prompt with an LLM agent (search, map, scrape)',
    load: async () => (await import('./agent.ts')).agentCommand,
  },
  {
    name: 'serve',
    summary: 'Run the /v2 server (default 127.0.0.1:3002)',
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  {
    name: 'worker',
    summary: 'Run queued crawls, batch scrapes and monitor checks (TRAWL_QUEUE=bullmq)',
    load: async () => (await import('./worker.ts')).workerCommand,
  },
  {
    name: 'monitor',
    summary: 'Create, list and run monitors; read their checks',
    load: async () => (await import('./monitor.ts')).monitorCommand,
  },
  {
    name: 'keys',
    summary: 'Create and list API keys of the server',
    load: async () => (await import('./keys.ts')).keysCommand,
  },
  {
    name: 'feedback',
    summary: 'List the feedback callers sent on their jobs',
    load: async () => (await import('./feedback.ts')).feedbackCommand,
  },
  {
    name: 'search',
    summary: 'Search what was scraped here, or the web through SearXNG',
    load: async () => (await import('./search.ts')).searchCommand,
  },
  {
    name: 'index',
    summary: 'Statistics or a rebuild of the built-in search index',
    load: async () => (await import('./search.ts')).indexCommand,
  },
  {
    name: 'doctor',
    summary: 'Check this installation: Node, Chromium, LibreOffice, the store, services, keys',
    load: async () => (await import('./doctor.ts')).doctorCommand,
  },
  {
    name: 'completion',
    summary: 'Print a bash or zsh completion script for trawl',
    load: async () => (await import('./completion.ts')).completionCommand,
  },
];

function mainHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'Usage: trawl <command> [options]',
    '',
    'Trawl turns web pages into clean markdown and structured data.',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    "Run 'trawl <command> --help' for a command's options; 'trawl --version' for the version.",
    '',
  ].join('\n');
}

/** The version of @trawl/http: src/cli and dist/cli both sit two folders below its package.json. */
function version(): string {
  const manifest = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Runs the CLI with `argv` (without node and script); resolves with the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V') {
    io.stdout(`trawl ${version()} (Node.js ${process.versions.node})\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(mainHelp());
    return name ? 0 : 2;
  }
  const entry = commands.find((candidate) => candidate.name === name);
  if (!entry) {
    const names = commands.map((c) => c.name);
    const guess = nearestName(name, names);
    io.stderr(
      `trawl: unknown command '${name}'${guess ? ` (did you mean '${guess}'?)` : ''}. ` +
        `Commands: ${names.join(', ')}. See 'trawl --help'.\n`,
    );
    return 2;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      // The command line itself is wrong: say what, and where the right spelling is.
      io.stderr(`trawl ${name}: ${error.message}; see 'trawl ${name} --help'\n`);
      return 2;
    }
    const trawlError = toTrawlError(error);
    io.stderr(`trawl ${name}: ${trawlError.code}: ${withSettingNames(trawlError.message)}\n`);
    return trawlError instanceof ValidationError ? 2 : 1;
  }
}
