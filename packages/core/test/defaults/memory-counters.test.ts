/** MemoryCounters, the embedded default, runs the Counters contract (one object, two handles). */
import { MemoryCounters } from '@trawl/core';
import { describeCountersContract } from '../../../../test/contracts/counters.contract.ts';

const counters = new MemoryCounters();
describeCountersContract('memory', () => [counters, counters]);
