import type { SnapshotChunk } from '../../sources/lists/snapshot-chunks.js';
import { startThread } from '../../start-thread.js';
import type { ListDelta } from './list-delta.js';

/** What the delta thread is sent (copied into its thread) and what it answers. */
export interface DeltaRequest {
  previous: SnapshotChunk[] | undefined;
  current: SnapshotChunk[];
}

export type DeltaResponse = { ok: ListDelta } | { error: string };

/**
 * Works out a list change (`listDelta`) in a thread of its own: it decodes and hashes every record
 * of both versions, seconds of CPU on the larger lists, which on the main thread would hold up the
 * screenings waiting there. The thread lives for one delta (a list changes a few times a day) and
 * answers the changed and removed records only; its memory goes with it.
 */
export function listDeltaInThread(
  previous: readonly SnapshotChunk[] | undefined,
  current: readonly SnapshotChunk[],
): Promise<ListDelta> {
  const worker = startThread(import.meta.url, 'list-delta-thread-entry');
  return new Promise<ListDelta>((resolve, reject) => {
    worker.once('message', (response: DeltaResponse) => {
      if ('ok' in response) resolve(response.ok);
      else reject(new Error(response.error));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      reject(new Error(`The list delta thread stopped (exit code ${code}) before answering.`)),
    );
    const request: DeltaRequest = { previous: previous && [...previous], current: [...current] };
    worker.postMessage(request);
  });
}
