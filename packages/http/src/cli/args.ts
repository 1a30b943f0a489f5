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
    throw usageErrorOf(error, args, Object.keys(options));
  }
}

/** A parseArgs failure as a usage error naming the flag (and the nearest known one). */
function usageErrorOf(error: unknown, args: string[], known: string[]): unknown {
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
    if (message.includes('does not take an argument'))
      return new UsageError(`option '${flag}' takes no value`);
    // parseArgs takes '-5' after a flag for another flag; the user meant a (bad) value.
    const next = args[args.indexOf(flag) + 1];
    if (next !== undefined && /^-\d/.test(next))
      return new UsageError(`option '${flag}' takes no negative value (got '${next}')`);
    return new UsageError(`option '${flag}' needs a value`);
  }
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return new UsageError(message);
  return error;
}

/** The known flag a typo most likely meant: a shared prefix or one edit away. */
function nearestFlag(flag: string, known: string[]): string | undefined {
  return nearestName(flag.replace(/^-+(no-)?/, '').split('=')[0] ?? '', known);
}

/**
 * The known name (a flag's or a command's) that a typo most likely meant: one edit away first,
 * then a shared prefix. Names under three letters guess nothing: too many would match.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  if (name.length < 3) return undefined;
  return (
    known.find((candidate) => oneEditApart(candidate, name)) ??
    known.find((candidate) => candidate.startsWith(name) || name.startsWith(candidate))
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
