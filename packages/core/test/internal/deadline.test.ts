/**
 * The deadline every fetch runs under: it aborts as `AbortSignal.timeout()` does, and once
 * released it never fires, so finished work holds no timer.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { deadlineOrSignal, startDeadline } from '../../src/internal/deadline.js';

describe('startDeadline', () => {
  it('aborts with a TimeoutError once the time has passed', async () => {
    const deadline = startDeadline(10);
    expect(deadline.signal.aborted).toBe(false);
    await sleep(60);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).name).toBe('TimeoutError');
  });

  it('never aborts once released', async () => {
    const deadline = startDeadline(10);
    deadline.release();
    await sleep(60);
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe('deadlineOrSignal', () => {
  it("aborts with the caller's reason when the caller's signal aborts first", () => {
    const deadline = startDeadline(60_000);
    const caller = new AbortController();
    const signal = deadlineOrSignal(deadline, caller.signal);
    caller.abort(new Error('stopped'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('stopped');
    deadline.release();
  });

  it('aborts with the deadline when the caller never does', async () => {
    const deadline = startDeadline(10);
    const signal = deadlineOrSignal(deadline, new AbortController().signal);
    await sleep(60);
    expect((signal.reason as Error).name).toBe('TimeoutError');
  });

  it('is the deadline itself without a caller signal', () => {
    const deadline = startDeadline(60_000);
    expect(deadlineOrSignal(deadline, undefined)).toBe(deadline.signal);
    deadline.release();
  });
});
