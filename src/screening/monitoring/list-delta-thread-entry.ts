import { parentPort } from 'node:worker_threads';
import type { SnapshotChunk } from '../../sources/lists/snapshot-chunks.js';
import { listDelta } from './list-delta.js';
import type { DeltaRequest, DeltaResponse } from './list-delta-thread.js';

// Entry of the thread that works out a list change for a monitor run (see list-delta-thread.ts).
parentPort?.once('message', (request: DeltaRequest) => {
  let response: DeltaResponse;
  try {
    const revive = (chunks: DeltaRequest['current']): SnapshotChunk[] =>
      chunks.map((chunk) => ({
        entityCount: chunk.entityCount,
        names: Buffer.from(chunk.names.buffer, chunk.names.byteOffset, chunk.names.byteLength),
        records: Buffer.from(chunk.records.buffer, chunk.records.byteOffset, chunk.records.byteLength),
      }));
    const delta = listDelta(request.previous && revive(request.previous), revive(request.current));
    response = { ok: delta };
  } catch (error) {
    response = { error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(response);
});
