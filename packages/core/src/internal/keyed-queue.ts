/**
 * Work queued per key: work on one key runs after every earlier work on that key (a
 * read-modify-write of one record, a claim of one name), work on other keys does not wait.
 * A failure is the caller's and does not stop the queue. Keys with nothing queued are forgotten.
 */
export class KeyedQueue<Key = string> {
  readonly #tails = new Map<Key, Promise<unknown>>();

  /** Runs `work` once earlier work on `key` has settled; resolves or rejects with its result. */
  run<T>(key: Key, work: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.#tails.set(key, settled);
    void settled.then(() => {
      if (this.#tails.get(key) === settled) this.#tails.delete(key);
    });
    return next;
  }
}
