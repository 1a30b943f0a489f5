/**
 * Whether this machine has a Chromium. CI installs one (.ci/run); on a machine without, the tests
 * that need a real browser are skipped and say why, and the ones about the missing browser run.
 */
import { findChromium } from '@trawl/core';

function lookUp(): string | undefined {
  try {
    findChromium();
    return undefined;
  } catch (error) {
    const reason = (error as Error).message;
    console.warn(`Skipping the tests that need a real Chromium: ${reason}`);
    return reason;
  }
}

/** Why there is no browser, or undefined when there is one. */
export const chromiumMissing = lookUp();
