import type { ListEntity } from '../list-entity.js';
import { type MatchableEntity, matchableEntity } from '../matchable-entity.js';

/**
 * Record text (uncompressed JSON) per chunk of a stored version, about 0.5 MB once compressed.
 * Chunks keep every database statement small, whatever the size of the list, and are decompressed
 * in parallel on a load.
 */
export const LIST_SNAPSHOT_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * A consecutive range of a list version's entities in their stored form, uncompressed. The names
 * the search index needs are kept apart from the full records, so a load parses only the names
 * (a tenth of the text) and keeps the records as text until a flag needs one.
 */
export interface SnapshotChunk {
  entityCount: number;
  /** A JSON array of the entities' `MatchableEntity` form. */
  names: Buffer;
  /** The entities as JSON, one per line, in the order of `names`. */
  records: Buffer;
}

const NEWLINE = 0x0a;

/**
 * Splits a parsed version into chunks. There is always at least one chunk, even for no entities,
 * so a stored version without chunks unambiguously means one whose entities were pruned.
 */
export function chunkEntities(
  entities: readonly ListEntity[],
  chunkBytes = LIST_SNAPSHOT_CHUNK_BYTES,
): SnapshotChunk[] {
  const chunks: SnapshotChunk[] = [];
  let names: string[] = [];
  let lines: string[] = [];
  let bytes = 0;
  const flush = () => {
    chunks.push({
      entityCount: lines.length,
      names: Buffer.from(`[${names.join(',')}]`),
      records: Buffer.from(lines.join('\n')),
    });
    names = [];
    lines = [];
    bytes = 0;
  };
  for (const entity of entities) {
    // JSON.stringify escapes line breaks inside strings, so a newline only ever separates records.
    const line = JSON.stringify(entity);
    lines.push(line);
    names.push(JSON.stringify(matchableEntity(entity)));
    bytes += Buffer.byteLength(line);
    if (bytes >= chunkBytes) flush();
  }
  if (lines.length > 0 || chunks.length === 0) flush();
  return chunks;
}

/** The names of a chunk, as the index builder reads them. */
export function chunkNames(chunk: Pick<SnapshotChunk, 'entityCount' | 'names'>): MatchableEntity[] {
  const names = JSON.parse(chunk.names.toString('utf8')) as MatchableEntity[];
  if (names.length !== chunk.entityCount) {
    throw new Error(`A stored list chunk has ${names.length} names for ${chunk.entityCount} entities.`);
  }
  return names;
}

/** Where each record of a chunk starts and ends (the end excludes its newline). */
export function recordBounds(chunk: SnapshotChunk): { starts: number[]; ends: number[] } {
  const starts: number[] = [];
  const ends: number[] = [];
  const { records } = chunk;
  let start = 0;
  while (records.length > 0 && start <= records.length) {
    const newline = records.indexOf(NEWLINE, start);
    const end = newline < 0 ? records.length : newline;
    starts.push(start);
    ends.push(end);
    start = end + 1;
  }
  if (starts.length !== chunk.entityCount) {
    throw new Error(`A stored list chunk has ${starts.length} records for ${chunk.entityCount} entities.`);
  }
  return { starts, ends };
}
