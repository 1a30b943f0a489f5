/**
 * The worker thread's side of `isolatedToHtml`: converts one file to HTML and answers with the
 * result or the error as data (worker-pool.ts). A task of `undefined` is the pool's probe.
 */
import { serializeError, type WorkerOutcome } from '../internal/worker-pool.ts';
import type { FileKind } from './detect.ts';
import { type DocumentHtml, toHtml, type ToHtmlOptions } from './to-html.ts';

export interface ToHtmlTask {
  kind: FileKind;
  bytes: Uint8Array;
  options: ToHtmlOptions;
}

export default async function convert(
  task: ToHtmlTask | undefined,
): Promise<WorkerOutcome<DocumentHtml | undefined>> {
  if (task === undefined) return { ok: true, value: undefined };
  try {
    return { ok: true, value: await toHtml(task.kind, task.bytes, task.options) };
  } catch (error) {
    return { ok: false, error: serializeError(error) };
  }
}
