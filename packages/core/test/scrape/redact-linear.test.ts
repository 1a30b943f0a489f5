/**
 * redactPII on text built to make its patterns backtrack: every pattern must take time in
 * proportion to the text. The e-mail pattern, tried from every position of a long run of
 * letters without an @, rescanned the run each time: 200 KB of one letter took about a minute
 * (1 MB, some twenty). A regular expression cannot be interrupted, so the redaction runs in a
 * worker thread that is stopped when the test's bound passes.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { redactText, resolveRedaction } from '../../src/convert/redact.js';

const size = 200_000;
const adversarial: Record<string, string> = {
  'one letter': 'a'.repeat(size),
  'dotted letters': 'a.'.repeat(size / 2),
  'letters and @': 'a@'.repeat(size / 2),
  'a long dotted domain': `a@${'b.'.repeat(size / 2)}1`,
  digits: '1'.repeat(size),
  'spaced digits': '1 '.repeat(size / 2),
  'dashed digits': '1-'.repeat(size / 2),
  'plus prefixes': '+1 '.repeat(size / 3),
  'IBAN groups': 'DE00 '.repeat(size / 5),
  'capital letters': 'A'.repeat(size),
};

/** Redacts `text` in a worker; false when it is not done within `withinMs`. */
function redactsWithin(text: string, withinMs: number): Promise<boolean> {
  const module = new URL('../../src/convert/redact.ts', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(${JSON.stringify(module)}).then(({ redactText, resolveRedaction }) => {
       redactText(workerData, resolveRedaction(true));
       parentPort.postMessage('done');
     });`,
    { eval: true, workerData: text },
  );
  return new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => resolve(false), withinMs);
    worker.once('message', () => {
      clearTimeout(timer);
      resolve(true);
    });
    worker.once('error', reject);
  }).finally(() => void worker.terminate());
}

describe('redactPII on adversarial text', () => {
  it.each(Object.keys(adversarial))(
    'redacts %s in linear time',
    async (name) => {
      expect(await redactsWithin(adversarial[name] ?? '', 8_000)).toBe(true);
    },
    15_000,
  );

  it('still finds what it found before', () => {
    const redaction = resolveRedaction(true)!;
    expect(
      redactText('write to john.doe+news@mail.example.co.uk or a@b.io, not x@y', redaction),
    ).toBe('write to [EMAIL] or [EMAIL], not x@y');
    expect(redactText('aaaa bob@example.com', redaction)).toBe('aaaa [EMAIL]');
  });
});
