import { createReadStream, readFileSync } from 'node:fs';
import type { FtmRelation } from '../../entity-building/ftm-relations.js';
import type { ListEntity } from '../../list-entity.js';
import type { MatchableEntity } from '../../matchable-entity.js';
import { byteLines } from './byte-lines.js';
import { COLLECTION_FORMAT, type CollectionManifest, collectionFile, idHash } from './collection-files.js';
import { SpoolReader } from './spool-file.js';

/** A name line of `names.jsonl`: what the name index reads of one entity. */
export interface CollectionNames {
  id: string;
  kind: MatchableEntity['kind'];
  names: MatchableEntity['names'];
}

/**
 * One built collection version, read from its folder: the entities stay on disk and are read one
 * at a time, by position (`at`) or by id (`get`, through the table of id hashes written with them:
 * 8 bytes an entity in memory, read at once when opened). Each call decodes a fresh object.
 */
export class FtmCollection {
  private readonly offsets: Float64Array;
  private readonly records: SpoolReader;
  /** `ids.bin`: the sorted id hashes, and the position of each. */
  private readonly idHashes: Uint32Array;
  private readonly idOrdinals: Uint32Array;

  private constructor(
    readonly folder: string,
    readonly manifest: CollectionManifest,
  ) {
    const bytes = readFileSync(collectionFile(folder, 'offsets'));
    this.offsets = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    if (this.offsets.length !== manifest.entities + 1) {
      throw new Error(`${folder}: ${this.offsets.length - 1} offsets for ${manifest.entities} entities`);
    }
    const ids = readFileSync(collectionFile(folder, 'ids'));
    const table = new Uint32Array(ids.buffer, ids.byteOffset, ids.byteLength / 4);
    this.idHashes = table.subarray(0, manifest.entities);
    this.idOrdinals = table.subarray(manifest.entities);
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

  /** The entity with this `source_id`, or `undefined`: a binary search of the id hashes, and a read of each entity sharing the hash. */
  get(sourceId: string): ListEntity | undefined {
    const hash = idHash(sourceId);
    const hashes = this.idHashes;
    let low = 0;
    let high = hashes.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (hashes[middle]! < hash) low = middle + 1;
      else high = middle;
    }
    for (let k = low; k < hashes.length && hashes[k] === hash; k++) {
      const entity = this.at(this.idOrdinals[k]!);
      if (entity?.source_id === sourceId) return entity;
    }
    return undefined;
  }

  /** Every entity's names, in order, read from disk as a stream (for the name index). */
  names(): AsyncGenerator<CollectionNames> {
    return jsonLines<CollectionNames>(collectionFile(this.folder, 'names'));
  }

  /** Every relation between two parties (ownership, family, association, ...), as read. */
  relations(): AsyncGenerator<FtmRelation> {
    return jsonLines<FtmRelation>(collectionFile(this.folder, 'relations'));
  }

  close(): void {
    this.records.close();
  }
}

/** The JSON lines of a file of the version, each parsed, read as a stream. */
async function* jsonLines<T>(file: string): AsyncGenerator<T> {
  for await (const { bytes } of byteLines(createReadStream(file)))
    yield JSON.parse(bytes.toString('utf8')) as T;
}
