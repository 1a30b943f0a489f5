/**
 * Where a file's conversion to HTML runs. Reader libraries (pdf.js and OCR, mammoth, exceljs, the
 * ODF and PPTX readers) work synchronously for seconds on some real files and can take most of a
 * gigabyte, so those kinds convert in a worker thread: at the deadline the worker is terminated
 * (SCRAPE_TIMEOUT), and past its heap limit it dies alone (CONTENT_TOO_LARGE). LibreOffice's
 * conversion of DOC, XLS and PPT is a child process under its own deadline and stays here; its
 * output then converts in the worker like any OOXML file.
 *
 * When no worker can run (a bundle without the worker file, a TypeScript loader the threads do
 * not inherit: the probe in worker-pool.ts finds out once), the conversion runs on the calling
 * thread as before: the deadline is then checked between pages only, and memory is not capped.
 */
import { WorkerPool, WorkerUnavailableError } from '../internal/worker-pool.ts';
import type { FileKind } from './detect.ts';
import { convertLegacy, legacyTargets } from './legacy.ts';
import { type DocumentHtml, toHtml, type ToHtmlOptions } from './to-html.ts';
import type { ToHtmlTask } from './to-html-worker.ts';

/** The heap a conversion may use; with the process's own, RSS stays under about 1 GB. */
const maxHeapMb = 512;
/** How much a conversion may add to the process's RSS, memory outside the heap included. */
const maxRssGrowthMb = 640;
/** Past this RSS a conversion may add a fifth of that only, keeping the process under ~1 GB. */
const rssCeilingMb = 960;

const heavyKinds = new Set<FileKind>(['pdf', 'docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp', 'epub']);

// The worker module sits beside this one, as .ts in the sources and .js once built.
const workerModule = new URL(
  `./to-html-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`,
  import.meta.url,
);
const pool = new WorkerPool({
  module: workerModule,
  what: 'Parsing the file',
  maxHeapMb,
  maxRssGrowthMb,
  rssCeilingMb,
});

/**
 * `toHtml`, in a worker for the kinds whose readers can run long or large.
 *
 * @throws SCRAPE_TIMEOUT past `options.deadline`; CONTENT_TOO_LARGE past the heap limit; and
 *   what `toHtml` throws
 */
export async function isolatedToHtml(
  kind: FileKind,
  bytes: Uint8Array,
  options: ToHtmlOptions & { deadline: number },
): Promise<DocumentHtml> {
  if (kind === 'doc' || kind === 'xls' || kind === 'ppt')
    return isolatedToHtml(legacyTargets[kind], await convertLegacy(bytes, kind, options), options);
  if (!heavyKinds.has(kind)) return toHtml(kind, bytes, options);
  const task: ToHtmlTask = { kind, bytes, options };
  try {
    return await pool.run<DocumentHtml>(task, options.deadline);
  } catch (error) {
    if (error instanceof WorkerUnavailableError) return toHtml(kind, bytes, options);
    throw error;
  }
}

/** Stops the conversion workers (running conversions fail); they start again on next use. */
export const closeParseWorkers = () => pool.close();
