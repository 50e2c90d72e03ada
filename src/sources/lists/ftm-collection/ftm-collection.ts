import { createReadStream, readFileSync } from 'node:fs';
import type { FtmRelation } from '../../entity-building/ftm-relations.js';
import type { ListEntity } from '../../list-entity.js';
import type { MatchableEntity } from '../../matchable-entity.js';
import { byteLines } from './byte-lines.js';
import { COLLECTION_FORMAT, type CollectionManifest, collectionFile } from './collection-files.js';
import { SpoolReader } from './spool-file.js';

/** A name line of `names.jsonl`: what the name index reads of one entity. */
export interface CollectionNames {
  id: string;
  kind: MatchableEntity['kind'];
  names: MatchableEntity['names'];
}

/**
 * One built collection version, read from its folder: the entities stay on disk and are read one
 * at a time, by position (`at`) or by id (`get`, through a table of id hashes: 8 bytes an entity
 * in memory). Each call decodes a fresh object.
 */
export class FtmCollection {
  private readonly offsets: Float64Array;
  private readonly records: SpoolReader;
  private idTable: IdTable | undefined;

  private constructor(
    readonly folder: string,
    readonly manifest: CollectionManifest,
  ) {
    const bytes = readFileSync(collectionFile(folder, 'offsets'));
    this.offsets = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    if (this.offsets.length !== manifest.entities + 1) {
      throw new Error(`${folder}: ${this.offsets.length - 1} offsets for ${manifest.entities} entities`);
    }
    this.records = new SpoolReader(collectionFile(folder, 'records'));
  }

  /** Opens the version in `folder`; throws when it is missing, incomplete or of another format. */
  static open(folder: string): FtmCollection {
    const manifest = JSON.parse(
      readFileSync(collectionFile(folder, 'manifest'), 'utf8'),
    ) as CollectionManifest;
    if (manifest.format !== COLLECTION_FORMAT) {
      throw new Error(
        `${folder}: collection format ${manifest.format}, this build reads ${COLLECTION_FORMAT}`,
      );
    }
    return new FtmCollection(folder, manifest);
  }

  get length(): number {
    return this.manifest.entities;
  }

  /** The entity at this position, or `undefined` past the end. */
  at(ordinal: number): ListEntity | undefined {
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal >= this.length) return undefined;
    const start = this.offsets[ordinal]!;
    const text = this.records.read(start, this.offsets[ordinal + 1]! - start);
    return JSON.parse(text.toString('utf8')) as ListEntity;
  }

  /** The entity with this `source_id`, or `undefined`. */
  async get(sourceId: string): Promise<ListEntity | undefined> {
    this.idTable ??= await IdTable.read(this);
    for (const ordinal of this.idTable.candidates(sourceId)) {
      const entity = this.at(ordinal);
      if (entity?.source_id === sourceId) return entity;
    }
    return undefined;
  }

  /** Every entity's names, in order, read from disk as a stream (for the name index). */
  async *names(): AsyncGenerator<CollectionNames> {
    for await (const { bytes } of byteLines(createReadStream(collectionFile(this.folder, 'names')))) {
      yield JSON.parse(bytes.toString('utf8')) as CollectionNames;
    }
  }

  /** Every relation between two parties (ownership, family, association, ...), as read. */
  async *relations(): AsyncGenerator<FtmRelation> {
    for await (const { bytes } of byteLines(createReadStream(collectionFile(this.folder, 'relations')))) {
      yield JSON.parse(bytes.toString('utf8')) as FtmRelation;
    }
  }

  close(): void {
    this.records.close();
  }
}

/**
 * Id -> position, as sorted 32-bit hashes beside their positions: a lookup is a binary search
 * and a check of the few entities sharing the hash, without a string per entity in memory.
 */
class IdTable {
  private constructor(
    private readonly hashes: Uint32Array,
    private readonly ordinals: Uint32Array,
  ) {}

  static async read(collection: FtmCollection): Promise<IdTable> {
    const hashes = new Uint32Array(collection.length);
    let ordinal = 0;
    for await (const { id } of collection.names()) hashes[ordinal++] = idHash(id);
    const order = Uint32Array.from({ length: hashes.length }, (_, k) => k).sort(
      (a, b) => hashes[a]! - hashes[b]!,
    );
    return new IdTable(
      Uint32Array.from(order, (k) => hashes[k]!),
      order,
    );
  }

  *candidates(id: string): Generator<number> {
    const hash = idHash(id);
    let low = 0;
    let high = this.hashes.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.hashes[middle]! < hash) low = middle + 1;
      else high = middle;
    }
    for (let k = low; k < this.hashes.length && this.hashes[k] === hash; k++) yield this.ordinals[k]!;
  }
}

/** FNV-1a over the id's UTF-16 code units. */
function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
