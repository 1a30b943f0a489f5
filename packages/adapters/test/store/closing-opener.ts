/**
 * Stores a test file opens are closed after each test, even when the test fails, so a failed
 * assertion never leaves a connection that keeps the run alive.
 */
import { afterEach } from 'vitest';

export function closingOpener<Options, Opened extends { close(): Promise<void> }>(
  make: (options: Options) => Opened,
): (options?: Options) => Opened {
  const opened: Opened[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  return (options = {} as Options) => {
    const store = make(options);
    opened.push(store);
    return store;
  };
}
