import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import { ownBytes } from '../../own-bytes.js';
import type { Db } from '../../store/database.js';
import type { ListStateRow } from '../../store/schema.js';
import type { ListEntity } from '../list-entity.js';
import type { ListFileRecord } from './list-fetcher.js';
import type { ListParseCounts } from './parsers/types.js';
import { chunkEntities, type SnapshotChunk } from './snapshot-chunks.js';

/** Accepted versions per list whose entities stay stored (older rows keep their metadata only). */
export const LIST_SNAPSHOTS_KEPT_PER_LIST = 3;
/** Parser warnings stored with a version: enough to diagnose, bounded for a broken file. */
export const LIST_SNAPSHOT_MAX_WARNINGS = 100;

/** How a version's entities are stored: in `list_snapshot_chunks`, or (before 0005) one blob. */
const CHUNKED_GZIP = 'chunked_gzip';
const JSON_GZIP = 'json_gzip';

const gzipAsync = promisify(gzip);
const gunzipInto = promisify(gunzip);
/**
 * zlib writes into 16 KB chunks by default: a restart's thousands of them, freed between the
 * lists' long-lived text, left glibc's heap full of holes it never returns (about 45 MB resident
 * after a restart). Chunks of 1 MB are mapped apart and returned whole; an output smaller than
 * its chunk is copied out of it, since the version keeps it for its life.
 */
const gunzipAsync = async (bytes: Uint8Array) => ownBytes(await gunzipInto(bytes, { chunkSize: 1 << 20 }));

export type RefreshOutcome = 'accepted' | 'unchanged' | 'rejected' | 'failed';

/** Options that change what a parse yields from the same files (us_csl skips lists others carry). */
export interface ListParseSettings {
  skipLists?: string[];
}

export interface ListSnapshotMeta {
  id: string;
  listId: string;
  version: string;
  format: string;
  listDate: string | undefined;
  fetchedAt: Date;
  entityCount: number;
  nameCount: number;
  files: ListFileRecord[];
  parseSettings: ListParseSettings;
  forced: boolean;
}

export interface NewListSnapshot extends Omit<ListSnapshotMeta, 'id'> {
  counts: ListParseCounts;
  warnings: string[];
  chunks: readonly SnapshotChunk[];
}

export interface StoredListSnapshot {
  meta: ListSnapshotMeta;
  chunks: SnapshotChunk[];
}

export interface ListAttempt {
  outcome: RefreshOutcome;
  error?: string | undefined;
}

/**
 * The database side of the lists: each accepted version with its parsed entities (compressed
 * chunks, see `snapshot-chunks.ts`), so a restart or another instance loads it without downloading
 * or parsing the original files, and one state row per list naming the version in service and the
 * last refresh's outcome.
 */
export class ListSnapshotStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async states(): Promise<Map<string, ListStateRow>> {
    const rows = await this.db.selectFrom('list_states').selectAll().execute();
    return new Map(rows.map((row) => [row.list_id, row]));
  }

  /** Stores a version and makes it the one in service, in one transaction. */
  async saveAccepted(snapshot: NewListSnapshot): Promise<ListSnapshotMeta> {
    const id = newId();
    const chunks = await Promise.all(
      snapshot.chunks.map(async (chunk) => ({
        entityCount: chunk.entityCount,
        names: await gzipAsync(chunk.names),
        records: await gzipAsync(chunk.records),
      })),
    );
    const now = this.clock.now();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('list_snapshots')
        .values({
          id,
          list_id: snapshot.listId,
          version: snapshot.version,
          format: snapshot.format,
          list_date: snapshot.listDate ?? null,
          fetched_at: snapshot.fetchedAt,
          entity_count: snapshot.entityCount,
          name_count: snapshot.nameCount,
          counts: JSON.stringify(snapshot.counts),
          files: JSON.stringify(snapshot.files),
          parse_options: JSON.stringify(snapshot.parseSettings),
          forced: snapshot.forced,
          warnings: JSON.stringify(snapshot.warnings.slice(0, LIST_SNAPSHOT_MAX_WARNINGS)),
          entities: null,
          entities_bytes: chunks.reduce((sum, c) => sum + c.names.byteLength + c.records.byteLength, 0),
          entities_encoding: CHUNKED_GZIP,
        })
        .execute();
      // One statement per chunk: no statement ever carries a whole list.
      for (const [seq, chunk] of chunks.entries()) {
        await trx
          .insertInto('list_snapshot_chunks')
          .values({
            snapshot_id: id,
            seq,
            entity_count: chunk.entityCount,
            names: chunk.names,
            records: chunk.records,
          })
          .execute();
      }
      // The change from the version in service to this one, for whoever follows the lists'
      // changes (ongoing monitoring): written with the version, so no accepted version is missed.
      const previous = await trx
        .selectFrom('list_states')
        .select('snapshot_id')
        .where('list_id', '=', snapshot.listId)
        .executeTakeFirst();
      await trx
        .insertInto('list_changes')
        .values({
          id: newId(),
          list_id: snapshot.listId,
          snapshot_id: id,
          previous_snapshot_id: previous?.snapshot_id ?? null,
          created_at: now,
        })
        .execute();
      await upsertState(trx, snapshot.listId, {
        snapshot_id: id,
        checked_at: now,
        attempted_at: now,
        outcome: 'accepted',
        error: null,
      });
    });
    await this.prune(snapshot.listId, id);
    const { counts: _counts, warnings: _warnings, chunks: _chunks, ...meta } = snapshot;
    return { id, ...meta };
  }

  /** Records a refresh that did not install a new version; only a completed check moves `checked_at`. */
  async recordAttempt(listId: string, attempt: ListAttempt): Promise<void> {
    const now = this.clock.now();
    await upsertState(this.db, listId, {
      attempted_at: now,
      outcome: attempt.outcome,
      error: attempt.error ?? null,
      ...(attempt.outcome === 'unchanged' ? { checked_at: now } : {}),
    });
  }

  /** A stored version with its entities, or `undefined` when it is gone or was pruned. */
  async loadSnapshot(id: string): Promise<StoredListSnapshot | undefined> {
    const stored = await this.storedVersion(id);
    if (!stored) return undefined;
    const chunks = stored.encoding === JSON_GZIP ? await this.loadJsonBlob(id) : await this.loadChunks(id);
    if (!chunks) return undefined;
    const count = chunks.reduce((sum, chunk) => sum + chunk.entityCount, 0);
    if (count !== stored.meta.entityCount) {
      throw new Error(`The stored version ${id} has ${count} of its ${stored.meta.entityCount} entities.`);
    }
    return { meta: stored.meta, chunks };
  }

  private async storedVersion(id: string): Promise<{ meta: ListSnapshotMeta; encoding: string } | undefined> {
    const row = await this.db
      .selectFrom('list_snapshots')
      .select(['id', 'list_id', 'version', 'format', 'list_date', 'fetched_at', 'entity_count', 'name_count'])
      .select(['files', 'parse_options', 'forced', 'entities_encoding'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    const meta: ListSnapshotMeta = {
      id: row.id,
      listId: row.list_id,
      version: row.version,
      format: row.format,
      listDate: row.list_date ?? undefined,
      fetchedAt: new Date(row.fetched_at),
      entityCount: row.entity_count,
      nameCount: row.name_count,
      files: row.files as ListFileRecord[],
      parseSettings: row.parse_options as ListParseSettings,
      forced: row.forced,
    };
    return { meta, encoding: row.entities_encoding };
  }

  // Read one chunk per statement, so that neither database ever holds more than one in a result;
  // each chunk is decompressed (off the main thread) while the next one is read.
  private async loadChunks(id: string): Promise<SnapshotChunk[] | undefined> {
    const seqs = await this.db
      .selectFrom('list_snapshot_chunks')
      .select('seq')
      .where('snapshot_id', '=', id)
      .orderBy('seq')
      .execute();
    if (seqs.length === 0) return undefined;
    const pending: Promise<SnapshotChunk>[] = [];
    for (const { seq } of seqs) {
      const row = await this.db
        .selectFrom('list_snapshot_chunks')
        .select(['entity_count', 'names', 'records'])
        .where('snapshot_id', '=', id)
        .where('seq', '=', seq)
        .executeTakeFirstOrThrow();
      pending.push(
        Promise.all([gunzipAsync(row.names), gunzipAsync(row.records)]).then(([names, records]) => ({
          entityCount: row.entity_count,
          names,
          records,
        })),
      );
    }
    return Promise.all(pending);
  }

  // Versions stored before chunks (migration 0005) are one gzip-compressed JSON array: they still
  // load, through a full parse, and are chunked in memory like a new version.
  private async loadJsonBlob(id: string): Promise<SnapshotChunk[] | undefined> {
    const row = await this.db
      .selectFrom('list_snapshots')
      .select('entities')
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row?.entities) return undefined;
    const json = await gunzipAsync(row.entities);
    return chunkEntities(JSON.parse(json.toString('utf8')) as ListEntity[]);
  }

  // Old versions keep their metadata (which version was in service when) but not their entities.
  private async prune(listId: string, currentId: string): Promise<void> {
    const kept = await this.db
      .selectFrom('list_snapshots')
      .select('id')
      .where('list_id', '=', listId)
      .orderBy('fetched_at', 'desc')
      .limit(LIST_SNAPSHOTS_KEPT_PER_LIST)
      .execute();
    const keep = [currentId, ...kept.map((row) => row.id)];
    const pruned = this.db
      .selectFrom('list_snapshots')
      .select('id')
      .where('list_id', '=', listId)
      .where('id', 'not in', keep);
    await this.db.deleteFrom('list_snapshot_chunks').where('snapshot_id', 'in', pruned).execute();
    await this.db
      .updateTable('list_snapshots')
      .set({ entities: null })
      .where('list_id', '=', listId)
      .where('entities', 'is not', null)
      .where('id', 'not in', keep)
      .execute();
  }
}

type StateChange = Partial<Omit<ListStateRow, 'list_id'>>;

async function upsertState(db: Db, listId: string, change: StateChange): Promise<void> {
  await db
    .insertInto('list_states')
    .values({ list_id: listId, ...change })
    .onConflict((oc) => oc.column('list_id').doUpdateSet(change))
    .execute();
}
