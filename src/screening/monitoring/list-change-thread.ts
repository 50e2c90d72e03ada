import type { Worker } from 'node:worker_threads';
import type { SnapshotChunk } from '../../sources/lists/snapshot-chunks.js';
import { startThread } from '../../start-thread.js';
import type { RemovedRecord } from './list-delta.js';
import type { SiftSubject } from './monitor-sift.js';

/** A changed record as a run needs it on the main thread: what a flag of it carries. */
export interface ChangedFlag {
  flagId: string;
  recordHash: string;
}

/** What a list change changed, as the main thread gets it from the thread. */
export interface ChangeSummary {
  changed: ChangedFlag[];
  removed: RemovedRecord[];
}

export type ToChangeThread =
  | {
      type: 'delta';
      listId: string;
      previous: SnapshotChunk[] | undefined;
      current: SnapshotChunk[];
    }
  | { type: 'sift'; id: number; subjects: SiftSubject[] };

export type FromChangeThread =
  | { type: 'delta'; delta: ChangeSummary }
  | { type: 'sifted'; id: number; passed: number[] }
  | { type: 'failed'; id?: number; error: string };

interface PendingSift {
  resolve: (passed: number[]) => void;
  reject: (error: Error) => void;
}

/**
 * The thread of one monitor run. It works out the list change (`listDelta`: decoding and hashing
 * every record of both versions, seconds of CPU on the larger lists) and then sifts the run's pages
 * of monitors against the changed records (`MonitorSift`, tens of microseconds per monitor, a minute
 * of CPU for a million monitors), while the main thread reads the next page and screens the
 * monitors the last one passed. It runs at a lower CPU priority than the threads answering
 * requests: a run is background work. It lives as long as the run; its memory goes with it.
 */
export class ListChangeThread {
  private readonly pending = new Map<number, PendingSift>();
  private nextId = 0;
  private failure: Error | undefined;
  /** Told when the thread fails while its start waits for the delta. */
  private onStartFailure: ((error: Error) => void) | undefined;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: FromChangeThread) => {
      if (message.type !== 'sifted' && message.type !== 'failed') return;
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id!);
      if (message.type === 'sifted') waiting.resolve(message.passed);
      else waiting.reject(new Error(message.error));
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      this.onStartFailure?.(this.failure);
      for (const waiting of this.pending.values()) waiting.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The list change thread stopped (exit code ${code}).`)));
  }

  /** Starts the thread of a change of `listId` and waits for what it changed. */
  static async start(
    listId: string,
    previous: readonly SnapshotChunk[] | undefined,
    current: readonly SnapshotChunk[],
  ): Promise<{ thread: ListChangeThread; delta: ChangeSummary }> {
    const worker = startThread(import.meta.url, 'list-change-thread-entry');
    const thread = new ListChangeThread(worker);
    let onMessage: ((message: FromChangeThread) => void) | undefined;
    try {
      const delta = await new Promise<ChangeSummary>((resolve, reject) => {
        onMessage = (message) => {
          if (message.type === 'delta') resolve(message.delta);
          else if (message.type === 'failed' && message.id === undefined) reject(new Error(message.error));
        };
        worker.on('message', onMessage);
        // The thread's own failure (see the constructor) fails the start too.
        thread.onStartFailure = reject;
        const message: ToChangeThread = {
          type: 'delta',
          listId,
          previous: previous && [...previous],
          current: [...current],
        };
        worker.postMessage(message);
      });
      return { thread, delta };
    } catch (error) {
      await thread.close();
      throw error;
    } finally {
      if (onMessage) worker.off('message', onMessage);
      thread.onStartFailure = undefined;
    }
  }

  /** The positions of the subjects the change may touch, in order. */
  sift(subjects: SiftSubject[]): Promise<number[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<number[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const message: ToChangeThread = { type: 'sift', id, subjects };
      this.worker.postMessage(message);
    });
  }

  /** Stops the thread; a sift asked after this fails. */
  async close(): Promise<void> {
    this.failure ??= new Error('The list change thread stopped: its run is over.');
    await this.worker.terminate();
  }
}
