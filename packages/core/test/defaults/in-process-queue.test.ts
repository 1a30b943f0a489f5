/** The embedded queue runs the Queue contract: units run in this process. */
import { InProcessQueue } from '@trawl/core';
import { describeQueueContract } from '../../../../test/contracts/queue.contract.ts';

describeQueueContract('in-process', () => Promise.resolve({ open: () => new InProcessQueue() }));
