/**
 * Configuration of the server and the CLI, read from the rows of config-rows.ts. Precedence: CLI
 * flags > environment > config file > defaults. Resolved once, frozen.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveEngineConfig, ValidationError, type EngineConfig } from '@trawl/core';
import type { CreditPrices } from '@trawl/core/server';
import type { z } from 'zod';
import { configRows } from './config-rows.ts';
import { roleDefaults, type ProcessRole } from './config-roles.ts';
import { storageKeys, type StorageSettings } from './config-storage.ts';
import type { ConfigRow } from './config-values.ts';

export { configRows };
export type { ProcessRole, StorageSettings };

/** Keys of the rows that configure the server rather than the engine. */
const serverKeys = [
  'port',
  'host',
  'apiKeys',
  'logLevel',
  'rateLimitPerMinute',
  'teamConcurrency',
  'teamCredits',
  'creditPrices',
  'feedbackDailyRefundCap',
  'searchFeedbackDailyRefundCap',
  'feedbackWindowMs',
  'feedbackOptedOutTeams',
  'webhookSecret',
  'webhookRetries',
  'webhookLeaseMs',
  'smtpUrl',
  'smtpFrom',
  'llmBaseUrl',
  'llmModel',
  'llmApiKey',
  'llmToolCalls',
  'llmDailyTokens',
  'searxngUrl',
] as const;

/** Settings of `trawl serve`. */
export interface ServerSettings {
  port: number;
  host: string;
  apiKeys?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  rateLimitPerMinute: number;
  teamConcurrency: number;
  teamCredits?: number;
  creditPrices?: CreditPrices;
  feedbackDailyRefundCap?: number;
  searchFeedbackDailyRefundCap?: number;
  feedbackWindowMs?: number;
  feedbackOptedOutTeams?: string[];
  webhookSecret?: string;
  webhookRetries: number;
  webhookLeaseMs: number;
  smtpUrl?: string;
  smtpFrom?: string;
  llmBaseUrl?: string;
  llmModel?: string;
  llmApiKey?: string;
  llmToolCalls?: 'auto' | 'native' | 'json-action';
  llmDailyTokens?: number;
  searxngUrl?: string;
}

/** The resolved settings of one process. */
export interface TrawlConfig {
  dataDir: string;
  storage: StorageSettings;
  engine: EngineConfig;
  server: ServerSettings;
}

/** Where settings come from, highest precedence first, and the process they are for. */
export interface ConfigSources {
  /**
   * What the process is for: its defaults follow (config-roles.ts). Required, so that every
   * command, and every new one, says whether strangers' requests reach it.
   */
  role: ProcessRole;
  /** Values from CLI flags, by key. */
  flags?: Record<string, unknown>;
  env?: Record<string, string | undefined>;
  /** Path of a JSON config file; `TRAWL_CONFIG` when unset. */
  configFile?: string;
  /**
   * More defaults, by key, over the role's: used where no flag, variable or file sets the key,
   * in place of the built-in default.
   */
  defaults?: Record<string, unknown>;
}

/** Reads, merges and validates the settings. @throws BAD_REQUEST naming the bad setting and its source */
export function loadConfig(sources: ConfigSources): Readonly<TrawlConfig> {
  const env = sources.env ?? process.env;
  const defaults = { ...roleDefaults(sources.role), ...sources.defaults };
  const filePath = sources.configFile ?? env['TRAWL_CONFIG'];
  const file = filePath ? readConfigFile(filePath) : {};
  const values: Record<string, unknown> = {};
  for (const row of configRows) {
    const envName = envNameOf(row, env);
    const [raw, source] =
      sources.flags?.[row.key] !== undefined
        ? [sources.flags[row.key], `flag --${row.key}`]
        : envName !== undefined
          ? [env[envName], `environment variable ${envName}`]
          : file[row.key] !== undefined && file[row.key] !== null
            ? [file[row.key], `config file ${filePath} key '${row.key}'`]
            : [defaults[row.key], 'default'];
    const parsed = (row.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      throw new ValidationError(
        `Invalid setting from ${source}: ${JSON.stringify(raw)} — ${parsed.error.issues[0]?.message ?? 'invalid'}. ${row.description}`,
        {
          details: [{ path: [row.key], message: parsed.error.issues[0]?.message ?? 'invalid' }],
        },
      );
    }
    if (parsed.data !== undefined) values[row.key] = parsed.data;
  }
  const unknownKeys = Object.keys(file).filter((key) => !configRows.some((row) => row.key === key));
  if (unknownKeys.length > 0) {
    throw new ValidationError(
      `Unknown key(s) in config file ${filePath}: ${unknownKeys.join(', ')}. Known keys: ${configRows.map((row) => row.key).join(', ')}`,
    );
  }
  const { dataDir, ...rest } = values;
  const server: Record<string, unknown> = {};
  const engine: Record<string, unknown> = {};
  const storage: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if ((serverKeys as readonly string[]).includes(key)) server[key] = value;
    else if ((storageKeys as readonly string[]).includes(key)) storage[key] = value;
    else engine[key] = value;
  }
  return Object.freeze({
    dataDir: resolve(String(dataDir)),
    storage: storage as unknown as StorageSettings,
    engine: resolveEngineConfig(engine),
    server: server as unknown as ServerSettings,
  });
}

/** The variables that can set `row`: its name, then its aliases. */
export function envNamesOf(row: ConfigRow): string[] {
  return [row.env, ...(row.aliases ?? [])];
}

/**
 * The environment variable that sets `row`, if any. A name and an alias set to different values
 * are refused rather than one silently winning. @throws BAD_REQUEST naming both
 */
function envNameOf(row: ConfigRow, env: Record<string, string | undefined>): string | undefined {
  const set = envNamesOf(row).filter((name) => env[name] !== undefined && env[name] !== '');
  const [first, ...others] = set;
  const differing = others.find((name) => env[name] !== env[first ?? '']);
  if (first !== undefined && differing !== undefined) {
    throw new ValidationError(
      `Conflicting settings: ${first}=${JSON.stringify(env[first])} and ${differing}=${JSON.stringify(env[differing])} both set ${row.key}; keep one`,
      { details: [{ path: [row.key], message: `${first} and ${differing} differ` }] },
    );
  }
  return first;
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ValidationError(`Cannot read the config file ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('expected a JSON object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ValidationError(
      `The config file ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
}
