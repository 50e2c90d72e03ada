import type { Worker } from 'node:worker_threads';
import { isBackground } from '../../background-work.js';
import type { EntityMatch, SearchOptions } from '../../matching/index.js';
import { startThread } from '../../start-thread.js';
import type { ListIndexer } from '../lists/loaded-lists.js';
import type { SnapshotChunk } from '../lists/snapshot-chunks.js';

/**
 * The matching thread's young generation (V8 sizes it to 3 semi-spaces): 12 MB keeps 8 MB of it in
 * memory where V8's default grew to 32 MB under load.
 */
const MATCHING_YOUNG_GENERATION_MB = 12;

/** How long after a thread died by itself the next one may start. */
const RESTART_PAUSE_MS = 1_000;

/**
 * Background screenings (batch items, by distinct query) the thread answers between two looks at
 * its messages: a request's search waits for at most these, not for every
 * item of the batches in flight.
 */
export const BACKGROUND_QUERIES_PER_STEP = 4;

/** The number of entities and of indexed names of one list version's index. */
export interface IndexSize {
  entities: number;
  names: number;
}

/** A chunk's names as the thread receives them: the stored JSON text, parsed there. */
export interface ChunkNames {
  entityCount: number;
  names: Uint8Array;
}

/**
 * What the matching thread is sent: one message per turn of the event loop, holding every
 * command given in that turn, in order (a screening's searches of the seven lists travel together).
 */
export type MatchingCommand =
  | { op: 'build'; id: number; index: number; chunks: ChunkNames[] }
  | {
      op: 'search';
      id: number;
      index: number;
      query: string;
      options: SearchOptions;
      /** Background work's (batch items): answered after requests' searches (matching-worker.ts). */
      background?: true;
    }
  | { op: 'release'; index: number };

/** One answer per build and search of a message, in one message. */
export type MatchingAnswer = { id: number } & (
  | { size: IndexSize }
  | { matches: Map<string, EntityMatch[]> }
  | { error: string }
);

interface Pending {
  resolve(answer: MatchingAnswer): void;
  reject(error: unknown): void;
}

/**
 * The list indexes in a thread of their own. Matching is the largest part of a screening's CPU
 * time, and an index build takes long enough per large list to stall requests: here both use the
 * second core, and the main
 * thread serves requests, the database and the cache meanwhile.
 *
 * The thread holds every index in service on one shared vocabulary, so it expands each query
 * word once for all the lists, and builds a new version's index in steps, answering the searches
 * of the versions in service in between. It starts with the first build. If it stops unexpectedly,
 * searches and builds in flight fail (a failed source, never "no match"), and the next command
 * starts another thread that first rebuilds every index in service from the names kept here (a
 * tenth of a list's stored text).
 */
export class MatchingThread implements ListIndexer<ThreadIndex> {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  /** The indexes in service, by number, with the names to rebuild them from. */
  private readonly live = new Map<number, ChunkNames[]>();
  private queue: MatchingCommand[] = [];
  private nextId = 0;
  private closed = false;
  private startAgainAt = 0;

  async build(chunks: readonly SnapshotChunk[]): Promise<ThreadIndex> {
    const index = this.nextId++;
    const names = chunks.map((chunk) => ({ entityCount: chunk.entityCount, names: chunk.names }));
    const answer = await this.ask((id) => ({ op: 'build', id, index, chunks: names }));
    if (!('size' in answer)) throw new Error('The matching thread answered a build with no index.');
    this.live.set(index, names);
    return new ThreadIndex(this, index, answer.size);
  }

  release(index: ThreadIndex): void {
    if (!this.live.delete(index.number)) return;
    // Queued behind the searches already asked, so they are answered first.
    this.enqueue({ op: 'release', index: index.number });
  }

  /** Per source, the entities of index `index` scoring at least the threshold (`NameIndex.search`). */
  async search(index: number, query: string, options: SearchOptions): Promise<Map<string, EntityMatch[]>> {
    const background = isBackground() ? { background: true as const } : {};
    const answer = await this.ask((id) => ({ op: 'search', id, index, query, options, ...background }));
    if (!('matches' in answer)) throw new Error('The matching thread answered a search with no matches.');
    return answer.matches;
  }

  /**
   * Stops the thread at once: what is in flight fails as on a crash, and the next command starts
   * another that rebuilds the indexes in service.
   */
  async restart(): Promise<void> {
    if (this.worker) await this.fail(this.worker, new Error('The matching thread was restarted.'));
  }

  /** Stops the thread for good (at shutdown); what is in flight and later commands fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.live.clear();
    const stopped = new Error('The matching thread was stopped.');
    if (this.worker) await this.fail(this.worker, stopped);
    this.queue = [];
    for (const command of this.pending.values()) command.reject(stopped);
    this.pending.clear();
  }

  private ask(command: (id: number) => MatchingCommand): Promise<MatchingAnswer> {
    if (this.closed) return Promise.reject(new Error('The matching thread was stopped.'));
    if (!this.worker && performance.now() < this.startAgainAt) {
      return Promise.reject(new Error('The matching thread stopped and is starting again; retry shortly.'));
    }
    const id = this.nextId++;
    return new Promise<MatchingAnswer>((resolve, reject) => {
      this.pending.set(id, {
        resolve: (answer) => ('error' in answer ? reject(new Error(answer.error)) : resolve(answer)),
        reject,
      });
      this.enqueue(command(id));
    });
  }

  // Commands given in one turn of the event loop go in one message, sent once the turn's
  // synchronous work is done: one message each way per screening instead of one per list.
  private enqueue(command: MatchingCommand): void {
    if (this.queue.length === 0) queueMicrotask(() => this.flush());
    this.queue.push(command);
  }

  private flush(): void {
    const commands = this.queue;
    this.queue = [];
    // While a dead thread's successor may not start yet, only releases can be queued here (every
    // ask is refused): the successor rebuilds only the indexes still in service anyway.
    if (commands.length === 0 || this.closed) return;
    if (!this.worker && performance.now() < this.startAgainAt) return;
    try {
      const worker = this.running();
      // The thread keeps the process alive while it works for someone, never while idle.
      if (this.pending.size > 0) worker.ref();
      worker.postMessage(commands);
    } catch (error) {
      // No thread could be started, or a command could not be sent: its callers get the error.
      for (const command of commands) {
        if (!('id' in command)) continue;
        this.pending.get(command.id)?.reject(error);
        this.pending.delete(command.id);
      }
    }
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = startThread(import.meta.url, 'matching-thread-entry', {
      resourceLimits: { maxYoungGenerationSizeMb: MATCHING_YOUNG_GENERATION_MB },
    });
    worker.unref();
    worker.on('message', (answers: MatchingAnswer[]) => {
      for (const answer of answers) {
        const pending = this.pending.get(answer.id);
        this.pending.delete(answer.id);
        pending?.resolve(answer);
      }
      if (this.pending.size === 0) worker.unref();
    });
    // A thread that dies by itself is started again after a pause, so one that dies at every
    // rebuild (out of memory, say) cannot loop.
    const died = (error: Error) => {
      if (this.worker === worker) this.startAgainAt = performance.now() + RESTART_PAUSE_MS;
      void this.fail(worker, error);
    };
    worker.on('error', (error) => died(error));
    worker.on('exit', (code) => {
      died(new Error(`The matching thread stopped (exit code ${code}) before answering.`));
    });
    this.worker = worker;
    // A new thread first rebuilds what its predecessor held; builds answer no one (id -1).
    if (this.live.size > 0) {
      const rebuilds: MatchingCommand[] = [...this.live].map(([index, chunks]) => ({
        op: 'build',
        id: -1,
        index,
        chunks,
      }));
      worker.postMessage(rebuilds);
    }
    return worker;
  }

  // Every command in flight or not yet sent fails with `error`; the thread is terminated and
  // forgotten (its successor rebuilds the indexes in service, so no release needs to reach it).
  private async fail(worker: Worker, error: unknown): Promise<void> {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.queue = [];
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const command of pending) command.reject(error);
    await worker.terminate();
  }
}

/** A list version's index held by the matching thread; what `ListSource` searches. */
export class ThreadIndex {
  constructor(
    private readonly thread: MatchingThread,
    readonly number: number,
    readonly size: IndexSize,
  ) {}

  search(query: string, options: SearchOptions): Promise<Map<string, EntityMatch[]>> {
    return this.thread.search(this.number, query, options);
  }
}
