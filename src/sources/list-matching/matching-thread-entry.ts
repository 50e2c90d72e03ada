import { parentPort } from 'node:worker_threads';
import { collectGarbage } from '../../collect-garbage.js';
import { NameIndexBuilder } from '../../matching/index.js';
import { chunkNames } from '../lists/snapshot-chunks.js';
import { failure, ListSearches } from './list-searches.js';
import { BACKGROUND_QUERIES_PER_STEP, type MatchingAnswer, type MatchingCommand } from './matching-thread.js';

// Entry of the thread that holds the list indexes for the main thread (see matching-thread.ts).
const searches = new ListSearches();

/**
 * Entities added to an index between two looks at the message queue. A build takes about a second
 * for the largest official list and tens of seconds for a million names; in steps of this size
 * (a few milliseconds each) the searches of the lists in service are answered meanwhile, instead
 * of waiting for it and timing out.
 */
const BUILD_STEP_ENTITIES = 256;

type BuildCommand = Extract<MatchingCommand, { op: 'build' }>;
type SearchCommand = Extract<MatchingCommand, { op: 'search' }>;

/**
 * Background searches not answered yet, by query (and options) in the order the queries came. A
 * request's searches are answered as they arrive; a batch's wait here and go
 * BACKGROUND_QUERIES_PER_STEP screenings at a time, between two looks at the message queue: a
 * request waits for one such step instead of every item of the batches in flight, and the thread
 * always has the batch's work at hand.
 */
const background = new Map<string, SearchCommand[]>();
let backgroundStepDue = false;

function queueBackground(command: SearchCommand): void {
  const query = JSON.stringify([command.query, command.options]);
  const waiting = background.get(query);
  if (waiting) waiting.push(command);
  else background.set(query, [command]);
  if (backgroundStepDue) return;
  backgroundStepDue = true;
  setImmediate(answerBackgroundStep);
}

/** Answers the background searches of the next few queries, all of a query's together. */
function answerBackgroundStep(): void {
  backgroundStepDue = false;
  const now: SearchCommand[] = [];
  let queries = 0;
  for (const [query, commands] of background) {
    if (queries++ === BACKGROUND_QUERIES_PER_STEP) break;
    now.push(...commands);
    background.delete(query);
  }
  if (now.length > 0) parentPort?.postMessage(searches.answer(now));
  if (background.size > 0) {
    backgroundStepDue = true;
    setImmediate(answerBackgroundStep);
  }
}

/** Answers every background search waiting (before a release, which must come after them). */
function answerAllBackground(): void {
  if (background.size === 0) return;
  const all = [...background.values()].flat();
  background.clear();
  parentPort?.postMessage(searches.answer(all));
}

// Builds run one after another, each in steps; searches and releases are answered between steps.
let builds: Promise<void> = Promise.resolve();
/** Indexes being built, with the build's end: a search of one (after a restart) waits for it. */
const building = new Map<number, Promise<void>>();

async function build(command: BuildCommand): Promise<MatchingAnswer> {
  const builder = new NameIndexBuilder(searches.shared);
  let added = 0;
  for (const chunk of command.chunks) {
    for (const entity of chunkNames({ entityCount: chunk.entityCount, names: asBuffer(chunk.names) })) {
      builder.add(entity);
      if (++added % BUILD_STEP_ENTITIES === 0) await nextTurn();
    }
  }
  const index = await builder.finishInSteps(nextTurn);
  searches.add(command.index, index);
  return { id: command.id, size: index.size };
}

function release(index: number): void {
  searches.release(index);
  combineLater();
}

/** Lets the thread read its messages (searches, releases) before going on. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The combined index (list-searches.ts) is rebuilt once the builds and releases have paused for
 * this long: at start-up and after a sync the lists' versions arrive one after another, and
 * combining after each would redo the work for every list. It is built in the builds' queue, in
 * steps like them.
 */
const COMBINE_AFTER_MS = 250;
let combineTimer: NodeJS.Timeout | undefined;

function combineLater(): void {
  clearTimeout(combineTimer);
  combineTimer = setTimeout(() => {
    // The last of the builds queued meanwhile asks again when it ends.
    if (building.size > 0) return;
    // A combination that fails leaves the lists' own indexes answering, as before it.
    // The lists' own tables the combined index replaces, and the names they were built from, are
    // garbage once it is built: collected then, not when the next searches' allocations call for it.
    builds = builds
      .then(() => searches.combine(nextTurn))
      .then(collectGarbage)
      .catch((error: unknown) =>
        console.error('combining the list indexes failed; each list answers alone:', error),
      );
  }, COMBINE_AFTER_MS);
}

parentPort?.on('message', (commands: MatchingCommand[]) => {
  const ready: Extract<MatchingCommand, { op: 'search' }>[] = [];
  for (const command of commands) {
    if (command.op === 'build') {
      builds = builds.then(async () => {
        const answer = await build(command).catch((error: unknown) => failure(command.id, error));
        building.delete(command.index);
        combineLater();
        parentPort?.postMessage([answer]);
      });
      building.set(command.index, builds);
      continue;
    }
    const pending = building.get(command.index);
    if (command.op === 'search' && pending) {
      void pending.then(() => parentPort?.postMessage(searches.answer([command])));
      continue;
    }
    if (command.op === 'release' && pending) {
      // Released while it is rebuilt (a new thread rebuilds what its predecessor held): once built.
      void pending.then(() => release(command.index));
      continue;
    }
    if (command.op === 'release') {
      // Searches asked before the release are answered first.
      answerReady();
      answerAllBackground();
      release(command.index);
    } else if (command.background) queueBackground(command);
    else ready.push(command);
  }
  answerReady();

  function answerReady(): void {
    if (ready.length === 0) return;
    parentPort?.postMessage(searches.answer(ready.splice(0)));
  }
});

// Bytes arrive from another thread as a plain Uint8Array; a Buffer view decodes them in place.
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
