import { parentPort } from 'node:worker_threads';
import { NameIndex, SharedVocabulary } from '../../matching/index.js';
import type { MatchingAnswer, MatchingCommand } from './matching-thread.js';
import { chunkNames } from './snapshot-chunks.js';

// Entry of the thread that holds the list indexes for the main thread (see matching-thread.ts).
// One vocabulary for every list's index: a screening expands each query word once for all of them.
const shared = new SharedVocabulary();
const indexes = new Map<number, NameIndex>();

function run(command: MatchingCommand): MatchingAnswer | undefined {
  switch (command.op) {
    case 'build': {
      const names = command.chunks.flatMap((chunk) =>
        chunkNames({ entityCount: chunk.entityCount, names: asBuffer(chunk.names) }),
      );
      const index = NameIndex.build(names, shared);
      indexes.set(command.index, index);
      return { id: command.id, size: index.size };
    }
    case 'search': {
      const index = indexes.get(command.index);
      if (!index) throw new Error('This list version is no longer in service; retry the screening.');
      return { id: command.id, matches: index.search(command.query, command.options) };
    }
    case 'release':
      indexes.delete(command.index);
      return undefined;
  }
}

parentPort?.on('message', (commands: MatchingCommand[]) => {
  const answers: MatchingAnswer[] = [];
  for (const command of commands) {
    try {
      const answer = run(command);
      if (answer) answers.push(answer);
    } catch (error) {
      if ('id' in command) {
        answers.push({ id: command.id, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  parentPort?.postMessage(answers);
});

// Bytes arrive from another thread as a plain Uint8Array; a Buffer view decodes them in place.
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
