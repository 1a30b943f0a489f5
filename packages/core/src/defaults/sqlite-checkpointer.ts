/**
 * Copies a SqliteStore's write-ahead log into its database on a thread of its own.
 *
 * SQLite checkpoints in the commit that makes the log pass its threshold, on the thread that
 * committed, and waits there for the copy and two fsyncs: in a 2,000-page crawl, 9 commits of
 * 115 ms each, a tenth of the crawl's thread. This thread opens its own connection
 * and runs passive checkpoints (they never wait for, nor stop, the writer) every few MB written,
 * so the writer's own checkpoint, still armed as the backstop, finds little left to copy. When
 * the store closes, this connection closes last and SQLite's final checkpoint runs here too.
 *
 * Nothing depends on this thread: if it cannot start or dies, the writer checkpoints as before.
 */
import { Worker } from 'node:worker_threads';

/** Bytes written after which the next commit asks for a checkpoint. */
const bytesPerCheckpoint = 4 * 1024 * 1024;

// The worker module sits beside this one, as .ts in the sources and .js once built.
const workerModule = new URL(
  `./sqlite-checkpoint-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);

/** Messages to the checkpoint thread. */
export type CheckpointRequest = 'checkpoint' | 'close';

export class WalCheckpointer {
  readonly #path: string;
  #worker: Worker | undefined;
  #exited: Promise<void> | undefined;
  #failed = false;
  #running = false;
  #unwritten = 0;

  constructor(path: string) {
    this.#path = path;
  }

  /** Counts bytes the store wrote; they reach the log at the next commit. */
  written(bytes: number): void {
    this.#unwritten += bytes;
  }

  /** After a commit: asks for a checkpoint once enough was written and none is running. */
  committed(): void {
    if (this.#failed || this.#running || this.#unwritten < bytesPerCheckpoint) return;
    const worker = this.#start();
    if (!worker) return;
    this.#unwritten = 0;
    this.#running = true;
    worker.postMessage('checkpoint' satisfies CheckpointRequest);
  }

  /**
   * Ends the thread after the store closed its own connection: this one, closed last, runs
   * SQLite's final checkpoint and removes the log.
   */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker || !this.#exited) return;
    this.#failed = true;
    // Held until it exits: a caller awaiting close() must not find the event loop empty.
    worker.ref();
    worker.postMessage('close' satisfies CheckpointRequest);
    await this.#exited;
  }

  #start(): Worker | undefined {
    if (this.#worker) return this.#worker;
    try {
      const worker = new Worker(workerModule, { workerData: { path: this.#path } });
      // A crawl that ends must not wait for this thread, nor a checkpoint keep a process alive.
      worker.unref();
      worker.on('message', () => {
        this.#running = false;
      });
      worker.on('error', () => {
        this.#failed = true;
      });
      this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
      this.#worker = worker;
      return worker;
    } catch {
      this.#failed = true;
      return undefined;
    }
  }
}
