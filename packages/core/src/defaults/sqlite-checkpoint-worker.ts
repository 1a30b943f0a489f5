/**
 * The checkpoint thread of a SqliteStore (sqlite-checkpointer.ts): its own connection to the
 * store's file, a passive checkpoint on each request, and the last close of the file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CheckpointRequest } from './sqlite-checkpointer.ts';

const sqlite = process.getBuiltinModule('node:sqlite');
const { path } = workerData as { path: string };
const db = new sqlite.DatabaseSync(path);
db.exec('PRAGMA busy_timeout = 5000');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

parentPort?.on('message', (request: CheckpointRequest) => {
  if (request === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  try {
    checkpoint.get();
  } catch {
    // Busy with another process's checkpoint, or a full disk: the writer's own checkpoint is
    // still armed, and the next request tries again.
  }
  parentPort?.postMessage('done');
});
