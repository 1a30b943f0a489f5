/**
 * A deadline for one piece of work that is let go of when the work ends.
 *
 * `AbortSignal.timeout()` keeps its timer, and with it the signal, until the time has passed,
 * whether or not the work is over: a crawl of ~300 pages/s with the 30 s default timeout held
 * ~9,400 timers and their signals at any moment, and the crawl thread's timer list with them
 *. This one clears its timer as soon as the caller releases it.
 */

/** A signal that aborts once `timeoutMs` passed, until released. */
export interface Deadline {
  /** Aborts with a `TimeoutError` DOMException, as `AbortSignal.timeout()` does. */
  readonly signal: AbortSignal;
  /** Stops the clock; call it in a `finally` once the work ended. */
  release(): void;
}

export function startDeadline(timeoutMs: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  // Like AbortSignal.timeout(): a pending deadline alone does not keep the process alive.
  timer.unref();
  return { signal: controller.signal, release: () => clearTimeout(timer) };
}

/** `deadline`'s signal, aborted by `signal` too when there is one. */
export function deadlineOrSignal(deadline: Deadline, signal: AbortSignal | undefined): AbortSignal {
  return signal ? AbortSignal.any([deadline.signal, signal]) : deadline.signal;
}
