import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Clock } from '../../clock.js';
import { newId } from '../../ids.js';
import type { Db } from '../../store/database.js';
import type { ListStateRow } from '../../store/schema.js';
import type { ListEntity } from '../list-entity.js';
import type { ListFileRecord } from './list-fetcher.js';
import type { ListParseCounts } from './parsers/types.js';

/** Accepted versions per list whose entities stay stored (older rows keep their metadata only). */
export const LIST_SNAPSHOTS_KEPT_PER_LIST = 3;
/** Parser warnings stored with a version: enough to diagnose, bounded for a broken file. */
export const LIST_SNAPSHOT_MAX_WARNINGS = 100;

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

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
  entities: readonly ListEntity[];
}

export interface ListAttempt {
  outcome: RefreshOutcome;
  error?: string | undefined;
}

/**
 * The database side of the lists: each accepted version with its parsed entities (gzip of JSON),
 * so a restart or another instance loads it without downloading or parsing the original files,
 * and one state row per list naming the version in service and the last refresh's outcome.
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
    const entities = await gzipAsync(JSON.stringify(snapshot.entities));
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
          entities,
          entities_bytes: entities.byteLength,
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
    const { counts: _counts, warnings: _warnings, entities: _entities, ...meta } = snapshot;
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

  async snapshotMeta(id: string): Promise<ListSnapshotMeta | undefined> {
    const row = await this.db
      .selectFrom('list_snapshots')
      .select(['id', 'list_id', 'version', 'format', 'list_date', 'fetched_at', 'entity_count', 'name_count'])
      .select(['files', 'parse_options', 'forced'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
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
  }

  /** A stored version with its entities, or `undefined` when it is gone or was pruned. */
  async loadSnapshot(id: string): Promise<{ meta: ListSnapshotMeta; entities: ListEntity[] } | undefined> {
    const [meta, row] = await Promise.all([
      this.snapshotMeta(id),
      this.db.selectFrom('list_snapshots').select('entities').where('id', '=', id).executeTakeFirst(),
    ]);
    if (!meta || !row?.entities) return undefined;
    const json = await gunzipAsync(row.entities);
    return { meta, entities: JSON.parse(json.toString('utf8')) as ListEntity[] };
  }

  // Old versions keep their metadata (which version was in service when) but not their entities.
  private async prune(listId: string, currentId: string): Promise<void> {
    const keep = this.db
      .selectFrom('list_snapshots')
      .select('id')
      .where('list_id', '=', listId)
      .orderBy('fetched_at', 'desc')
      .limit(LIST_SNAPSHOTS_KEPT_PER_LIST);
    await this.db
      .updateTable('list_snapshots')
      .set({ entities: null })
      .where('list_id', '=', listId)
      .where('entities', 'is not', null)
      .where('id', '!=', currentId)
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
