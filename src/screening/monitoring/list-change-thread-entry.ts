import { parentPort } from 'node:worker_threads';
import type { SnapshotChunk } from '../../sources/lists/snapshot-chunks.js';
import { lowerThisThreadsPriority } from '../../thread-priority.js';
import type { FromChangeThread, ToChangeThread } from './list-change-thread.js';
import { listDelta } from './list-delta.js';
import { MonitorSift } from './monitor-sift.js';
import { MONITOR_RUN_THREAD_NICENESS } from './monitoring-policy.js';

// Entry of the thread of one monitor run (see list-change-thread.ts): the delta first, then sifts.
lowerThisThreadsPriority(MONITOR_RUN_THREAD_NICENESS);
let sift: MonitorSift | undefined;
const answer = (message: FromChangeThread) => parentPort?.postMessage(message);
const problem = (error: unknown) => (error instanceof Error ? error.message : String(error));

parentPort?.on('message', (message: ToChangeThread) => {
  if (message.type === 'delta') {
    try {
      const delta = listDelta(message.previous && revive(message.previous), revive(message.current));
      sift = new MonitorSift(message.listId, delta.changed);
      answer({
        type: 'delta',
        delta: {
          changed: delta.changed.map(({ flagId, recordHash }) => ({ flagId, recordHash })),
          removed: delta.removed,
        },
      });
    } catch (error) {
      answer({ type: 'failed', error: problem(error) });
    }
    return;
  }
  try {
    if (!sift) throw new Error('A sift came before the delta.');
    const passed: number[] = [];
    message.subjects.forEach((subject, i) => {
      if (sift!.mayMatch(subject)) passed.push(i);
    });
    answer({ type: 'sifted', id: message.id, passed });
  } catch (error) {
    answer({ type: 'failed', id: message.id, error: problem(error) });
  }
});

/** Chunks arrive as plain byte arrays: the decoders read Buffers. */
function revive(chunks: readonly SnapshotChunk[]): SnapshotChunk[] {
  return chunks.map((chunk) => ({
    entityCount: chunk.entityCount,
    names: Buffer.from(chunk.names.buffer, chunk.names.byteOffset, chunk.names.byteLength),
    records: Buffer.from(chunk.records.buffer, chunk.records.byteOffset, chunk.records.byteLength),
  }));
}
