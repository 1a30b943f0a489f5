/**
 * The `trawl` command line: dispatches to one module per command. Every command has `--help`;
 * errors print one line to stderr and exit non-zero (1 for failures, 2 for usage errors).
 */
import { readFileSync } from 'node:fs';
import { toTrawlError, ValidationError } from '@trawl/core';
import { agentCommand } from './agent.ts';
import { UsageError } from './args.ts';
import { batchCommand } from './batch.ts';
import { crawlCommand } from './crawl.ts';
import { extractCommand } from './extract.ts';
import { feedbackCommand } from './feedback.ts';
import { keysCommand } from './keys.ts';
import { mapCommand } from './map.ts';
import { monitorCommand } from './monitor.ts';
import { parseCommand } from './parse.ts';
import { scrapeCommand } from './scrape.ts';
import { indexCommand, searchCommand } from './search.ts';
import { serveCommand } from './serve.ts';
import { workerCommand } from './worker.ts';

/** One CLI command. */
export interface Command {
  name: string;
  summary: string;
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
}

const commands: Command[] = [
  scrapeCommand,
  crawlCommand,
  batchCommand,
  mapCommand,
  parseCommand,
  extractCommand,
  agentCommand,
  serveCommand,
  workerCommand,
  monitorCommand,
  keysCommand,
  feedbackCommand,
  searchCommand,
  indexCommand,
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
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    io.stderr(
      `trawl: unknown command '${name}'. Commands: ${commands.map((c) => c.name).join(', ')}. See 'trawl --help'.\n`,
    );
    return 2;
  }
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
    io.stderr(`trawl ${name}: ${trawlError.code}: ${trawlError.message}\n`);
    return trawlError instanceof ValidationError ? 2 : 1;
  }
}
