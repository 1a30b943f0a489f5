/**
 * The LLM answer cache: answers kept in the Store under a hash of (model, task,
 * schema, page text), so re-crawling unchanged pages with the same question costs no tokens.
 * Only answers that passed validation are kept.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../interfaces/store.ts';
import { daysMs } from '../internal/time.ts';

const namespace = 'llm-answers';
/** Answers outlive the page cache's default (30 days) by nothing: both describe the same page. */
const ttlMs = daysMs(30);

/** What identifies one answer. */
export interface AnswerKey {
  model: string;
  /** The task as sent: system and instruction text. */
  task: string;
  schema: unknown;
  content: string;
}

/** The cache key of an answer: a SHA-256 over its parts, each length-prefixed. */
export function answerKey(key: AnswerKey): string {
  const hash = createHash('sha256');
  for (const part of [key.model, key.task, JSON.stringify(key.schema ?? null), key.content])
    hash.update(`${part.length}:`).update(part);
  return hash.digest('hex');
}

/** Answers by key, in a Store; a missing store caches nothing. */
export class AnswerCache {
  readonly #store: Store | undefined;

  constructor(store: Store | undefined) {
    this.#store = store;
  }

  /** The kept answer, or undefined. Store failures count as a miss: the model can still answer. */
  async get(key: string): Promise<unknown> {
    if (!this.#store) return undefined;
    try {
      const entry = await this.#store.get<{ answer: unknown }>(namespace, key);
      return entry?.answer;
    } catch {
      return undefined;
    }
  }

  /** Keeps an answer; a failing store only loses the saving. */
  async put(key: string, answer: unknown): Promise<void> {
    if (!this.#store) return;
    try {
      await this.#store.set(namespace, key, { answer }, { ttlMs });
    } catch {
      // The answer is still returned; only the next call pays again.
    }
  }
}
