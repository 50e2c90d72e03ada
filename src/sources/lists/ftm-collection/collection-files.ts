import path from 'node:path';
import { KEY_HASH_SEED, nextKeyHash } from '../../../matching/key-postings.js';

/**
 * The files of one built FtM collection version, in a folder of its own under the data folder.
 * The folder is written as `<name>.partial` and renamed when complete, so a folder without that
 * suffix always holds a whole version (a load stopped halfway leaves only a `.partial` folder).
 */
export const COLLECTION_FILES = {
  /** Every stored entity as JSON (the common entity model with its FtM record), one after another. */
  records: 'records.bin',
  /** Float64 little-endian: where each entity's record starts, and one more for the end. */
  offsets: 'offsets.bin',
  /** One JSON line per entity, in the same order: its id, kind and names, what the name index reads. */
  names: 'names.jsonl',
  /** One JSON line per relation between two parties (ownership, family, ...), as read (`FtmRelation`). */
  relations: 'relations.jsonl',
  /**
   * Id -> position: the entities' id hashes (`idHash`), sorted, then the position of each, both
   * Uint32 little-endian: a lookup is a binary search, with no string per entity in memory.
   */
  ids: 'ids.bin',
  /** What the version is (`CollectionManifest`); written last. */
  manifest: 'manifest.json',
} as const;

/** The layout of the files; a version of another layout is built again, never misread. */
export const COLLECTION_FORMAT = 2;

export interface CollectionManifest {
  format: typeof COLLECTION_FORMAT;
  source: string;
  /** Entities stored (targets with a name). */
  entities: number;
  /** Lines read from the export, entities and not. */
  lines: number;
  /** Lines that were not entities, skipped. */
  skipped: number;
  /** Relations stored. */
  relations: number;
  /** The export's latest `last_seen` day, when it states one. */
  listDate?: string;
  warnings: string[];
  /** ISO time the build finished. */
  builtAt: string;
  /** Bytes of `records.bin`. */
  recordBytes: number;
}

export function collectionFile(folder: string, file: keyof typeof COLLECTION_FILES): string {
  return path.join(folder, COLLECTION_FILES[file]);
}

export const PARTIAL_SUFFIX = '.partial';

/** An id's hash, the key of `ids.bin`: the name index's key hash (FNV-1a over UTF-16 code units), unsigned. */
export function idHash(id: string): number {
  let hash = KEY_HASH_SEED;
  for (let i = 0; i < id.length; i++) hash = nextKeyHash(hash, id.charCodeAt(i));
  return hash >>> 0;
}
