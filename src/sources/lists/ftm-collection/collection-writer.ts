import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { FtmRelation } from '../../entity-building/ftm-relations.js';
import type { ListEntity } from '../../list-entity.js';
import { matchableEntity } from '../../matchable-entity.js';
import {
  COLLECTION_FORMAT,
  type CollectionManifest,
  collectionFile,
  idHash,
  PARTIAL_SUFFIX,
} from './collection-files.js';
import { SpoolWriter } from './spool-file.js';

/**
 * Writes one collection version into `<folder>.partial`, entity by entity, and renames it to
 * `folder` once the manifest is written: a reader never sees a version half written.
 */
export class CollectionWriter {
  private readonly partial: string;
  private readonly records: SpoolWriter;
  private readonly names: SpoolWriter;
  private readonly relations: SpoolWriter;
  private relationCount = 0;
  private offsets: Float64Array = new Float64Array(1024);
  private idHashes: Uint32Array = new Uint32Array(1024);
  private count = 0;

  constructor(private readonly folder: string) {
    this.partial = `${folder}${PARTIAL_SUFFIX}`;
    rmSync(this.partial, { recursive: true, force: true });
    mkdirSync(this.partial, { recursive: true });
    this.records = new SpoolWriter(collectionFile(this.partial, 'records'));
    this.names = new SpoolWriter(collectionFile(this.partial, 'names'));
    this.relations = new SpoolWriter(collectionFile(this.partial, 'relations'));
  }

  get entities(): number {
    return this.count;
  }

  /**
   * Adds `entity`; `rawText`, when given, is its `raw` record as the JSON text it was read from,
   * written as it is instead of serialised again (half the work of a record).
   */
  add(entity: ListEntity, rawText?: Buffer): void {
    const { kind, names } = matchableEntity(entity);
    if (this.count + 1 >= this.offsets.length) {
      const grown = new Float64Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
      const hashes = new Uint32Array(this.idHashes.length * 2);
      hashes.set(this.idHashes);
      this.idHashes = hashes;
    }
    this.idHashes[this.count] = idHash(entity.source_id);
    this.offsets[this.count] = this.records.append(recordText(entity, rawText));
    this.names.append(Buffer.from(`${JSON.stringify({ id: entity.source_id, kind, names })}\n`, 'utf8'));
    this.count++;
  }

  addRelation(relation: FtmRelation): void {
    this.relations.append(Buffer.from(`${JSON.stringify(relation)}\n`, 'utf8'));
    this.relationCount++;
  }

  /** Writes the offsets and the manifest, then puts the folder in place of any older one. */
  finish(
    manifest: Omit<CollectionManifest, 'format' | 'entities' | 'relations' | 'builtAt' | 'recordBytes'>,
  ): CollectionManifest {
    this.offsets[this.count] = this.records.size;
    const whole: CollectionManifest = {
      format: COLLECTION_FORMAT,
      ...manifest,
      entities: this.count,
      relations: this.relationCount,
      builtAt: new Date().toISOString(),
      recordBytes: this.records.size,
    };
    this.records.close();
    this.names.close();
    this.relations.close();
    const offsets = this.offsets.subarray(0, this.count + 1);
    writeFileSync(
      collectionFile(this.partial, 'offsets'),
      Buffer.from(offsets.buffer, offsets.byteOffset, offsets.byteLength),
    );
    writeFileSync(collectionFile(this.partial, 'ids'), idTable(this.idHashes.subarray(0, this.count)));
    writeFileSync(collectionFile(this.partial, 'manifest'), `${JSON.stringify(whole, null, 2)}\n`);
    rmSync(this.folder, { recursive: true, force: true });
    renameSync(this.partial, this.folder);
    return whole;
  }

  /** Removes what was written: the build failed. */
  abandon(): void {
    try {
      this.records.close();
      this.names.close();
      this.relations.close();
    } finally {
      rmSync(this.partial, { recursive: true, force: true });
    }
  }
}

const RAW_KEY = Buffer.from(',"raw":');
const CLOSE = Buffer.from('}');

function recordText(entity: ListEntity, rawText: Buffer | undefined): Buffer {
  if (!rawText) return Buffer.from(JSON.stringify(entity), 'utf8');
  const { raw: _, ...rest } = entity;
  const text = JSON.stringify(rest);
  // `rest` always has fields (source, list, ...): its text ends `...}`, and `raw` goes before that.
  return Buffer.concat([Buffer.from(text.slice(0, -1), 'utf8'), RAW_KEY, rawText, CLOSE]);
}

/** `ids.bin`: the hashes sorted, then the position each belongs to. */
function idTable(hashes: Uint32Array): Buffer {
  const order = Uint32Array.from({ length: hashes.length }, (_, k) => k).sort(
    (a, b) => hashes[a]! - hashes[b]!,
  );
  const table = new Uint32Array(hashes.length * 2);
  order.forEach((ordinal, k) => {
    table[k] = hashes[ordinal]!;
    table[hashes.length + k] = ordinal;
  });
  return Buffer.from(table.buffer, table.byteOffset, table.byteLength);
}
