import { parentPort } from 'node:worker_threads';
import { type NameIndex, NameIndexBuilder, SharedVocabulary } from '../../matching/index.js';
import type { MatchingAnswer, MatchingCommand } from './matching-thread.js';
import { chunkNames } from './snapshot-chunks.js';

// Entry of the thread that holds the list indexes for the main thread (see matching-thread.ts).
// One vocabulary for every list's index: a screening expands each query word once for all of them.
const shared = new SharedVocabulary();
const indexes = new Map<number, NameIndex>();

/**
 * Entities added to an index between two looks at the message queue. A build takes about a second
 * for the largest official list and tens of seconds for a million names; in steps of this size
 * (a few milliseconds each) the searches of the lists in service are answered meanwhile, instead
 * of waiting for it and timing out.
 */
const BUILD_STEP_ENTITIES = 256;

type BuildCommand = Extract<MatchingCommand, { op: 'build' }>;

// Builds run one after another, each in steps; searches and releases are answered between steps.
let builds: Promise<void> = Promise.resolve();
/** Indexes being built, with the build's end: a search of one (after a restart) waits for it. */
const building = new Map<number, Promise<void>>();

async function build(command: BuildCommand): Promise<MatchingAnswer> {
  const builder = new NameIndexBuilder(shared);
  let added = 0;
  for (const chunk of command.chunks) {
    for (const entity of chunkNames({ entityCount: chunk.entityCount, names: asBuffer(chunk.names) })) {
      builder.add(entity);
      if (++added % BUILD_STEP_ENTITIES === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const index = builder.finish();
  indexes.set(command.index, index);
  return { id: command.id, size: index.size };
}

parentPort?.on('message', (commands: MatchingCommand[]) => {
  const answers: MatchingAnswer[] = [];
  for (const command of commands) {
    if (command.op === 'build') {
      builds = builds.then(async () => {
        const answer = await build(command).catch((error: unknown) => failure(command.id, error));
        building.delete(command.index);
        parentPort?.postMessage([answer]);
      });
      building.set(command.index, builds);
      continue;
    }
    const pending = building.get(command.index);
    if (command.op === 'search' && pending) {
      void pending.then(() => parentPort?.postMessage([answerOf(command)]));
      continue;
    }
    if (command.op === 'release') indexes.delete(command.index);
    else answers.push(answerOf(command));
  }
  if (answers.length > 0) parentPort?.postMessage(answers);
});

function answerOf(command: Extract<MatchingCommand, { op: 'search' }>): MatchingAnswer {
  try {
    const index = indexes.get(command.index);
    if (!index) throw new Error('This list version is no longer in service; retry the screening.');
    return { id: command.id, matches: index.search(command.query, command.options) };
  } catch (error) {
    return failure(command.id, error);
  }
}

function failure(id: number, error: unknown): MatchingAnswer {
  return { id, error: error instanceof Error ? error.message : String(error) };
}

// Bytes arrive from another thread as a plain Uint8Array; a Buffer view decodes them in place.
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
