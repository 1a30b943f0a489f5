/**
 * Parses filter lists into Ghostery's engine on a thread of its own (adblock.ts): EasyList and
 * EasyPrivacy took 3.5 s of the thread that answers requests on a loaded machine, the first time
 * a page was rendered with blockAds. The engine comes back serialised, its buffer transferred.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FiltersEngine } from '@ghostery/adblocker';
import { engineOptions } from './adblock-options.ts';

const engine = FiltersEngine.parse(workerData as string, engineOptions);
const bytes = engine.serialize();
parentPort?.postMessage(bytes, [bytes.buffer as ArrayBuffer]);
