/**
 * The status answer of a crawl or batch scrape, one page of its documents at a time with an
 * absolute `next` URL, and the same as a stream over the SDK's watcher WebSocket.
 */
import type { WebSocket } from 'ws';
import { ValidationError, type Job } from '@trawl/core';
import { jobResultsRetentionMs, type JobOwner } from '../jobs.ts';

/** Documents per status page; `next` reads on. */
export const statusPageSize = 100;

/** A `skip` or `limit` query parameter. @throws BAD_REQUEST for anything but a whole number */
export function pageNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0 || (name === 'limit' && number === 0)) {
    throw new ValidationError(
      `Invalid query parameter '${name}': expected a whole number ${name === 'limit' ? 'above 0' : '0 or more'} (got '${value}')`,
      { details: [{ path: [name], message: 'expected a non-negative integer' }] },
    );
  }
  return number;
}

/** The status answer of a crawl or batch scrape, one page of its documents at a time. */
export async function statusBody(
  job: Job,
  owner: JobOwner,
  skip: number,
  limit: number,
  collection: string,
) {
  // limit 0: the counters alone (the watcher sends documents one by one).
  const page = limit > 0 ? await job.results({ skip, limit }) : { data: [], nextSkip: undefined };
  const progress = job.progress;
  const next =
    page.nextSkip !== undefined
      ? `${collection}/${job.id}?skip=${page.nextSkip}${limit !== statusPageSize ? `&limit=${limit}` : ''}`
      : undefined;
  return {
    success: true,
    status: job.status,
    completed: progress.completed,
    total: progress.total,
    creditsUsed: progress.scraped,
    expiresAt: new Date(Date.parse(owner.createdAt) + jobResultsRetentionMs).toISOString(),
    ...(next ? { next } : {}),
    data: page.data,
  };
}

/** Every stored document of a job, read a status page at a time. */
async function allDocuments(job: Job): Promise<unknown[]> {
  const documents: unknown[] = [];
  for (let skip: number | undefined = 0; skip !== undefined;) {
    const page = await job.results({ skip, limit: statusPageSize });
    documents.push(...page.data);
    skip = page.nextSkip;
  }
  return documents;
}

/**
 * Streams a job over a WebSocket: a `catchup` with the status, a `document` message per document
 * (those stored already, then each as it comes), and at the end `done` (completed or cancelled,
 * with the final status) or `error` (failed). A job already finished gets its documents inside
 * the `catchup`: both official SDKs stop reading at a catchup whose status is final. Unknown or
 * foreign jobs close with 1008.
 */
export async function watch(
  socket: WebSocket,
  find: () => Promise<{ job: Job; owner: JobOwner } | undefined>,
  collection: string,
): Promise<void> {
  const found = await find().catch(() => undefined);
  if (!found) {
    socket.close(1008, 'Job not found');
    return;
  }
  const { job, owner } = found;
  let open = true;
  socket.once('close', () => (open = false));
  const sendJson = (message: unknown) => {
    if (open) socket.send(JSON.stringify(message));
  };
  try {
    const status = await statusBody(job, owner, 0, 0, collection);
    if (status.status !== 'scraping') {
      sendJson({ type: 'catchup', data: { ...status, data: await allDocuments(job) } });
      sendJson(
        status.status === 'failed'
          ? { type: 'error', error: (await job.done).error ?? 'The job failed' }
          : { type: 'done', data: status },
      );
      if (open) socket.close(1000);
      return;
    }
    sendJson({ type: 'catchup', data: status });
    for await (const document of job) {
      if (!open) return;
      sendJson({ type: 'document', data: document });
    }
    await job.done;
    const final = await statusBody(job, owner, 0, 0, collection);
    if (job.status === 'failed') {
      sendJson({ type: 'error', error: (await job.done).error ?? 'The job failed' });
    } else {
      sendJson({ type: 'done', data: final });
    }
  } catch (error) {
    sendJson({ type: 'error', error: (error as Error).message });
  }
  if (open) socket.close(1000);
}
