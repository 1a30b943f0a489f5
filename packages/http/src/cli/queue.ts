/**
 * The queue a process takes units of work from, as the configuration chooses it: in this process
 * by default, or BullMQ on Redis, shared by every API and worker process of a deployment.
 */
import { InProcessQueue, ValidationError, type Queue } from '@trawl/core';
import { BullmqQueue } from '@trawl/adapters';
import type { TrawlConfig } from '../config.ts';

/** Opens the configured queue. @throws BAD_REQUEST when `bullmq` is chosen without a Redis URL */
export function openQueue(config: Pick<TrawlConfig, 'storage'>): Queue {
  const { queue, redisUrl, queueLeaseMs, queuePrefix } = config.storage;
  if (queue === 'in-process') return new InProcessQueue();
  if (redisUrl === undefined)
    throw new ValidationError('TRAWL_QUEUE=bullmq needs TRAWL_REDIS_URL (redis://…)');
  return new BullmqQueue({ url: redisUrl, leaseMs: queueLeaseMs, prefix: queuePrefix });
}
