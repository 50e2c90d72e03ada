import type { ListEntity } from '../../sources/list-entity.js';
import { PackedEntities } from '../../sources/lists/packed-entities.js';
import { chunkNames, type SnapshotChunk } from '../../sources/lists/snapshot-chunks.js';
import { entityKey, type MatchableEntity, matchableEntity } from '../../sources/matchable-entity.js';
import { listRecordHash } from '../../sources/record-hash.js';

/** A record of the new version that the previous one did not have, or had with other content. */
export interface ChangedRecord {
  /** The flag id a screening gives the record (`source:source_id`). */
  flagId: string;
  recordHash: string;
  entity: ListEntity;
  matchable: MatchableEntity;
}

/** A record of the previous version that the new one no longer has. */
export interface RemovedRecord {
  flagId: string;
  recordHash: string;
}

/** What a new list version changed: the records a monitor run screens against, and those it lost. */
export interface ListDelta {
  changed: ChangedRecord[];
  removed: RemovedRecord[];
}

/**
 * The records each version holds, by flag id, with the hash a flag of the record carries; records
 * compared by that hash, so a change only in what the hash leaves out (an export's crawl date) is no
 * change. With no previous version (the list's first, or one whose records were pruned) every
 * record counts as added: a monitor already flagged for one is not alerted again (its known flags).
 */
export function listDelta(
  previous: readonly SnapshotChunk[] | undefined,
  current: readonly SnapshotChunk[],
): ListDelta {
  const before = previous ? hashes(previous) : new Map<string, string>();
  const changed: ChangedRecord[] = [];
  const seen = new Set<string>();
  for (const entity of entities(current)) {
    const flagId = entityKey(entity);
    const recordHash = listRecordHash(entity.source, entity.raw);
    seen.add(flagId);
    if (before.get(flagId) === recordHash) continue;
    changed.push({ flagId, recordHash, entity, matchable: matchableEntity(entity) });
  }
  const removed: RemovedRecord[] = [];
  for (const [flagId, recordHash] of before) if (!seen.has(flagId)) removed.push({ flagId, recordHash });
  return { changed, removed };
}

function hashes(chunks: readonly SnapshotChunk[]): Map<string, string> {
  const byId = new Map<string, string>();
  for (const entity of entities(chunks))
    byId.set(entityKey(entity), listRecordHash(entity.source, entity.raw));
  return byId;
}

function entities(chunks: readonly SnapshotChunk[]): PackedEntities {
  return new PackedEntities(chunks, chunks.map(chunkNames));
}
