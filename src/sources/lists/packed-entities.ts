import type { ListEntity } from '../list-entity.js';
import { type MatchableEntity, sourceIdOfKey } from '../matchable-entity.js';
import { listRecordHash } from '../record-hash.js';
import { recordBounds, type SnapshotChunk } from './snapshot-chunks.js';

/**
 * The entities of one list version in memory, each kept as its JSON text and decoded when asked
 * for. A screening needs the full record (with the list's own `raw` record) of the few entities it
 * flags only, so the tens of thousands of others cost their text outside the V8 heap instead of a
 * tree of small objects that every garbage collection traces, and a load does not parse them.
 * Each call decodes a fresh object: a caller may change it without touching the list.
 */
export class PackedEntities implements Iterable<ListEntity> {
  readonly length: number;
  private readonly texts: Buffer[];
  private readonly chunkOf: Uint16Array;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;
  private readonly ordinals = new Map<string, number>();
  private readonly recordHashes = new Map<number, string>();

  /** `names[c]` are the names of `chunks[c]`, in the same order (see `chunkNames`). */
  constructor(chunks: readonly SnapshotChunk[], names: readonly (readonly MatchableEntity[])[]) {
    this.length = chunks.reduce((sum, chunk) => sum + chunk.entityCount, 0);
    this.texts = chunks.map((chunk) => chunk.records);
    this.chunkOf = new Uint16Array(this.length);
    this.starts = new Uint32Array(this.length);
    this.ends = new Uint32Array(this.length);
    let ordinal = 0;
    chunks.forEach((chunk, c) => {
      const bounds = recordBounds(chunk);
      const chunkNames = names[c] ?? [];
      for (let i = 0; i < chunk.entityCount; i++, ordinal++) {
        this.chunkOf[ordinal] = c;
        this.starts[ordinal] = bounds.starts[i]!;
        this.ends[ordinal] = bounds.ends[i]!;
        this.ordinals.set(sourceIdOfKey(chunkNames[i]!.key), ordinal);
      }
    });
  }

  /** The entity with this `source_id`, or `undefined`. */
  get(sourceId: string): ListEntity | undefined {
    const ordinal = this.ordinals.get(sourceId);
    return ordinal === undefined ? undefined : this.at(ordinal);
  }

  /** The entity at this position in the list's order, or `undefined` past the end. */
  at(ordinal: number): ListEntity | undefined {
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= this.length) return undefined;
    const text = this.texts[this.chunkOf[ordinal]!]!;
    return JSON.parse(text.toString('utf8', this.starts[ordinal], this.ends[ordinal])) as ListEntity;
  }

  /**
   * The `record_hash` of the record with this `source_id` (`Flag.recordHash`), or `undefined`:
   * worked out at its first flag (from the record as stored) and remembered while the version is
   * in service, since the same records are flagged screening after screening.
   */
  recordHash(sourceId: string): string | undefined {
    const ordinal = this.ordinals.get(sourceId);
    if (ordinal === undefined) return undefined;
    let hash = this.recordHashes.get(ordinal);
    if (hash === undefined) {
      const entity = this.at(ordinal)!;
      hash = listRecordHash(entity.source, entity.raw);
      this.recordHashes.set(ordinal, hash);
    }
    return hash;
  }

  /** Decodes every entity in order: for tools and tests, never on a screening's path. */
  *[Symbol.iterator](): Iterator<ListEntity> {
    for (let ordinal = 0; ordinal < this.length; ordinal++) yield this.at(ordinal)!;
  }

  /** Bytes of record text held. */
  get bytes(): number {
    return this.texts.reduce((sum, text) => sum + text.byteLength, 0);
  }
}
