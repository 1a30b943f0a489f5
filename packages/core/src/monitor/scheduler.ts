/**
 * The monitors' timer: one timer, set at the earliest planned run of all monitors (kept in a
 * min-heap), fires whatever is due and sets itself again; and a daily retention sweep. The
 * store's `nextRunAt` is the truth, so a restart loses nothing: the facade plans every active
 * monitor again at `start()`.
 */
import { dayMs, hourMs } from '../internal/time.ts';

/** Longest a timer waits before looking at the heap again (timers cannot wait past ~24.8 days). */
const maxTimerMs = 6 * hourMs;
/** Delay of the first retention sweep after `start()`, out of the way of the catch-up runs. */
const firstSweepMs = 60_000;

/** A min-heap entry; stale when its version is not the monitor's latest. */
interface Due {
  at: number;
  id: string;
  version: number;
}

/** What the scheduler calls. */
export interface SchedulerHooks {
  /** Runs the monitor `id`, due at `now` (it plans its next run itself). */
  fire(id: string, now: Date): Promise<void>;
  /** Purges what retention no longer keeps, for every monitor. */
  sweep(): Promise<unknown>;
}

/** Plans monitor runs and fires them on time. */
export class MonitorScheduler {
  readonly #hooks: SchedulerHooks;
  readonly #heap: Due[] = [];
  readonly #versions = new Map<string, number>();
  /** The run each monitor is planned for now (its latest heap entry). */
  readonly #planned = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #sweeper: NodeJS.Timeout | undefined;
  #started = false;

  constructor(hooks: SchedulerHooks) {
    this.#hooks = hooks;
  }

  /** Whether the timer runs. */
  get started(): boolean {
    return this.#started;
  }

  /** Puts (or moves) a monitor's next run on the timer; a paused one leaves it. */
  plan(monitor: { id: string; status: string; nextRunAt: string | null }): void {
    const version = (this.#versions.get(monitor.id) ?? 0) + 1;
    this.#versions.set(monitor.id, version);
    this.#planned.delete(monitor.id);
    if (monitor.status !== 'active' || !monitor.nextRunAt) return;
    const at = Date.parse(monitor.nextRunAt);
    this.#planned.set(monitor.id, at);
    heapPush(this.#heap, { at, id: monitor.id, version });
    if (this.#started && this.#heap[0]?.id === monitor.id) this.#arm();
  }

  /** Plans a monitor read back from a shared store, unless it is planned for that time already. */
  replan(monitor: { id: string; status: string; nextRunAt: string | null }): void {
    const isActive = monitor.status === 'active' && monitor.nextRunAt !== null;
    const at = isActive ? Date.parse(monitor.nextRunAt ?? '') : undefined;
    if (this.#planned.get(monitor.id) === at) return;
    this.plan(monitor);
  }

  /** Takes a monitor off the timer. */
  unplan(id: string): void {
    this.#versions.delete(id);
    this.#planned.delete(id);
  }

  /** Starts the timer and the daily sweep. Idempotent. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#arm();
    // Monitors that never run (paused ones) are purged too: once a day, starting soon after.
    const sweep = () => {
      this.#sweeper = setTimeout(
        () => {
          void this.#hooks.sweep().finally(() => {
            if (this.#started) sweep();
          });
        },
        this.#sweeper === undefined ? firstSweepMs : dayMs,
      );
      this.#sweeper.unref();
    };
    sweep();
  }

  /** Stops the timer and the sweep. */
  stop(): void {
    this.#started = false;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#sweeper) clearTimeout(this.#sweeper);
    this.#sweeper = undefined;
  }

  /** Sets the one timer at the earliest planned run. */
  #arm(): void {
    if (!this.#started) return;
    if (this.#timer) clearTimeout(this.#timer);
    while (this.#heap[0] && this.#heap[0].version !== this.#versions.get(this.#heap[0].id))
      heapPop(this.#heap);
    const first = this.#heap[0];
    if (!first) {
      this.#timer = undefined;
      return;
    }
    const delay = Math.min(Math.max(0, first.at - Date.now()), maxTimerMs);
    this.#timer = setTimeout(() => void this.#tick(), delay);
  }

  /** Fires every monitor whose time has come, then sets the timer again. */
  async #tick(): Promise<void> {
    this.#timer = undefined;
    const now = new Date();
    const due: string[] = [];
    while (this.#heap[0] && this.#heap[0].at <= now.getTime()) {
      const entry = heapPop(this.#heap);
      if (entry && entry.version === this.#versions.get(entry.id)) due.push(entry.id);
    }
    for (const id of due) {
      // Versions move while firing; the fire re-plans the monitor.
      this.#versions.set(id, (this.#versions.get(id) ?? 0) + 1);
      this.#planned.delete(id);
      await this.#hooks.fire(id, now);
    }
    this.#arm();
  }
}

function heapPush(heap: Due[], entry: Due): void {
  heap.push(entry);
  let index = heap.length - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if ((heap[parent]?.at ?? 0) <= entry.at) break;
    heap[index] = heap[parent] as Due;
    index = parent;
  }
  heap[index] = entry;
}

function heapPop(heap: Due[]): Due | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || !last) return top;
  let index = 0;
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    const at = (i: number) => (i === index ? last.at : (heap[i]?.at ?? Infinity));
    if (left < heap.length && at(left) < at(smallest)) smallest = left;
    if (right < heap.length && at(right) < at(smallest)) smallest = right;
    if (smallest === index) break;
    heap[index] = heap[smallest] as Due;
    index = smallest;
  }
  heap[index] = last;
  return top;
}
