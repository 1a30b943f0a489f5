/**
 * Reading a command's arguments the way mature command-line tools do: a mistake in them (an
 * unknown flag, a flag without its value, a missing URL) is a usage error — one line naming the
 * flag and pointing at `--help`, exit status 2 — never an "unexpected error".
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ValidationError } from '@trawl/core';

/**
 * A mistake in the command line itself. The CLI prints its message with the command's name and a
 * pointer to `--help`, and exits 2.
 */
export class UsageError extends ValidationError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** parseArgs with the command's flags; its errors become usage errors that name the flag. */
export function parseFlags<const T extends ParseArgsOptionsConfig>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, allowNegative: true, strict: true });
  } catch (error) {
    throw usageErrorOf(error, Object.keys(options));
  }
}

/** A parseArgs failure as a usage error naming the flag (and the nearest known one). */
function usageErrorOf(error: unknown, known: string[]): unknown {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message;
  const flag = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const guess = nearestFlag(flag, known);
    return new UsageError(
      `unknown option '${flag}'${guess ? ` (did you mean '--${guess}'?)` : ''}`,
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    return new UsageError(
      message.includes('does not take an argument')
        ? `option '${flag}' takes no value`
        : `option '${flag}' needs a value`,
    );
  }
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return new UsageError(message);
  return error;
}

/** The known flag a typo most likely meant: a shared prefix or one edit away. */
function nearestFlag(flag: string, known: string[]): string | undefined {
  const name = flag.replace(/^-+(no-)?/, '').split('=')[0] ?? '';
  if (name.length < 3) return undefined;
  return known.find(
    (candidate) =>
      candidate.startsWith(name) || name.startsWith(candidate) || oneEditApart(candidate, name),
  );
}

function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  // Same length: one substitution; otherwise one insertion or deletion.
  return a.length === b.length
    ? a.slice(i + 1) === b.slice(i + 1)
    : a.slice(i + (a.length > b.length ? 1 : 0)) === b.slice(i + (b.length > a.length ? 1 : 0));
}
