import type { Worker } from 'node:worker_threads';
import { startThread } from '../../start-thread.js';
import type { ParsedVersion } from './parsed-version.js';
import type { ListParserDescriptor } from './parsers/types.js';
import type { SnapshotChunk } from './snapshot-chunks.js';
import type { ListParseSettings } from './snapshot-store.js';

/** What the parse thread is sent (copied into its thread) and what it answers. */
export interface ParseRequest {
  id: number;
  parserId: string;
  format: string;
  files: [string, Uint8Array][];
  settings: ListParseSettings;
}

export type ParseResponse = { id: number } & ({ ok: ParsedVersion } | { error: string });

interface Pending {
  resolve(parsed: ParsedVersion): void;
  reject(error: unknown): void;
}

/**
 * Parses list versions in a worker thread. A parse makes hundreds of megabytes of short-lived
 * objects and runs for seconds on the big lists: in a worker it neither stalls the screenings on
 * the main thread nor leaves its garbage in the main heap, whose memory V8 and the allocator keep
 * once grown. The worker answers with the chunks only. It starts with the first parse and serves
 * every parse until `stop`, which the caller calls when a round of refreshes is over: the worker's
 * memory goes with it, and one round pays for starting one thread. Aborting a parse's signal
 * stops the worker (and any other parse it was running).
 */
export class ParseThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  parse(
    parser: ListParserDescriptor,
    files: ReadonlyMap<string, Uint8Array>,
    settings: ListParseSettings,
    signal?: AbortSignal,
  ): Promise<ParsedVersion> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const worker = this.running();
    // The worker keeps the process alive while it works for someone, never while idle.
    worker.ref();
    const id = this.nextId++;
    const request: ParseRequest = {
      id,
      parserId: parser.id,
      format: parser.format,
      files: [...files],
      settings,
    };
    return new Promise<ParsedVersion>((resolve, reject) => {
      const abort = () => void this.fail(worker, signal?.reason);
      signal?.addEventListener('abort', abort, { once: true });
      const done = () => signal?.removeEventListener('abort', abort);
      this.pending.set(id, {
        resolve: (parsed) => {
          done();
          resolve(parsed);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      worker.postMessage(request);
    });
  }

  /** Stops the worker, if one runs; a later parse starts another. */
  async stop(): Promise<void> {
    if (this.worker) await this.fail(this.worker, new Error('The list parser thread was stopped.'));
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread(import.meta.url, 'parse-thread-entry');
    worker.on('message', (response: ParseResponse) => {
      const pending = this.pending.get(response.id);
      this.pending.delete(response.id);
      if (this.pending.size === 0) worker.unref();
      if ('ok' in response) pending?.resolve(revive(response.ok));
      else pending?.reject(new Error(response.error));
    });
    worker.on('error', (error) => void this.fail(worker, error));
    worker.on('exit', (code) => {
      const error = new Error(`The list parser thread stopped (exit code ${code}) before answering.`);
      void this.fail(worker, error);
    });
    this.worker = worker;
    return worker;
  }

  // Every parse in flight fails with `error`; the worker is terminated and forgotten.
  private async fail(worker: Worker, error: unknown): Promise<void> {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const parse of pending) parse.reject(error);
    await worker.terminate();
  }
}

// Buffers arrive from another thread as plain Uint8Arrays; views over the same bytes restore them.
function revive(parsed: ParsedVersion): ParsedVersion {
  const buffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: SnapshotChunk[] = parsed.chunks.map((chunk) => ({
    entityCount: chunk.entityCount,
    names: buffer(chunk.names),
    records: buffer(chunk.records),
  }));
  return { ...parsed, chunks };
}
