/**
 * Finding a program the operator installed (Chromium, LibreOffice): the configured path when
 * one is set, else the first of the usual install paths that is an executable file. Trawl never
 * downloads these itself.
 */
import { accessSync, constants, statSync } from 'node:fs';

/** Whether a path is an executable file (a directory with +x is not). */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What findExecutable says when it finds nothing, so each caller keeps its own message. */
export interface ExecutableFailures {
  /** The error for a configured path that is not an executable file. */
  badConfigured: (configuredPath: string) => Error;
  /** The error when no candidate is an executable file. */
  notFound: (candidates: readonly string[]) => Error;
}

/**
 * The executable to run. A configured path must exist: falling back to another would hide a
 * typo in the setting.
 */
export function findExecutable(
  configuredPath: string | undefined,
  candidates: readonly string[],
  failures: ExecutableFailures,
  isExecutable: (path: string) => boolean = isExecutableFile,
): string {
  if (configuredPath) {
    if (isExecutable(configuredPath)) return configuredPath;
    throw failures.badConfigured(configuredPath);
  }
  const found = candidates.find((path) => isExecutable(path));
  if (found) return found;
  throw failures.notFound(candidates);
}
