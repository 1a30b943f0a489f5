import { describe, expect, it } from 'vitest';
import { Semaphore } from '@trawl/core/server';

describe('Semaphore', () => {
  it('lets `permits` holders in and the next waiter in when one releases', async () => {
    const semaphore = new Semaphore(2);
    await semaphore.acquire();
    await semaphore.acquire();
    let third = false;
    const waiting = semaphore.acquire().then(() => (third = true));
    await Promise.resolve();
    expect(third).toBe(false);
    expect(semaphore.waiting).toBe(1);
    semaphore.release();
    await waiting;
    expect(third).toBe(true);
    expect(semaphore.available).toBe(0);
  });

  it('takes an aborted waiter out of the line, rejecting with the reason', async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    const controller = new AbortController();
    const given = semaphore.acquire(controller.signal);
    const next = semaphore.acquire();
    controller.abort(new RangeError('gave up'));
    await expect(given).rejects.toThrow('gave up');
    expect(semaphore.waiting).toBe(1);
    semaphore.release();
    await next;
    expect(semaphore.available).toBe(0);
    semaphore.release();
    expect(semaphore.available).toBe(1);
  });

  it('refuses at once when the signal is already aborted and no permit is free', async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    await expect(semaphore.acquire(AbortSignal.abort(new Error('late')))).rejects.toThrow('late');
    expect(semaphore.waiting).toBe(0);
  });

  it('wraps a reason that is not an Error, keeping it as the cause', async () => {
    const semaphore = new Semaphore(1);
    await semaphore.acquire();
    const controller = new AbortController();
    const given = semaphore.acquire(controller.signal);
    controller.abort('stop');
    await expect(given).rejects.toMatchObject({ cause: 'stop' });
  });
});
