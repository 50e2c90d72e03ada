import { type RawBuilder, sql } from 'kysely';
import type { PlanId } from '../../accounts/plans.js';
import { newId } from '../../ids.js';
import type { Db } from '../../store/database.js';
import { followingCtes, type NamedStatements } from '../../store/named-statements.js';
import type { ScreeningRequest } from '../screening-request.js';
import type { StoredResult } from '../screening-result.js';
import type { BatchItemInput } from './batch-input.js';
import { BATCH_ITEM_LEASE_MS } from './batch-policy.js';

/** An item this instance has claimed, with what screening it needs. */
export interface ClaimedItem {
  batchId: string;
  index: number;
  reference: string | null;
  request: ScreeningRequest;
  claimToken: string;
  accountId: string;
  keyId: string;
  keyPrefix: string;
  keyLast4: string;
  plan: PlanId;
  accountActive: boolean;
}

/** Items are inserted this many per statement (bounded statement size, 10,000 items in 10 trips). */
const INSERT_ITEMS_PER_STATEMENT = 1_000;

/** Stores a batch and all its items, pending, in one transaction: it is queued whole or not at all. */
export async function insertBatch(
  db: Db,
  batch: { id: string; accountId: string; keyId: string; createdAt: Date },
  items: readonly BatchItemInput[],
): Promise<void> {
  await db.transaction().execute(async (tx) => {
    await sql`INSERT INTO batches (id, account_id, key_id, status, total, created_at)
      VALUES (${batch.id}, ${batch.accountId}, ${batch.keyId}, 'queued', ${items.length}, ${batch.createdAt})`.execute(
      tx,
    );
    for (let at = 0; at < items.length; at += INSERT_ITEMS_PER_STATEMENT) {
      const rows = items.slice(at, at + INSERT_ITEMS_PER_STATEMENT).map(
        (item) =>
          sql`(${batch.id}, ${item.index}, ${item.reference}, ${JSON.stringify(item.request)}::jsonb,
              ${JSON.stringify(item.resolved?.request ?? null)}::jsonb, 'pending', ${batch.createdAt})`,
      );
      await sql`INSERT INTO batch_items (batch_id, index, reference, request, screened_request, status, queued_at)
        VALUES ${sql.join(rows)}`.execute(tx);
    }
  });
}

/**
 * Claims up to `limit` items for this instance, oldest batch first, straight from the index of
 * open items: pending ones, and running ones whose lease ran out (their instance died). `FOR UPDATE
 * SKIP LOCKED` lets instances claim side by side; the claim marks each row with a token and a lease
 * in the same statement, and the batch becomes `running`.
 */
export async function claimItems(db: Db, now: Date, limit: number): Promise<ClaimedItem[]> {
  const token = newId();
  const leaseEnd = new Date(now.getTime() + BATCH_ITEM_LEASE_MS);
  const { rows } = await sql<{
    batch_id: string;
    index: number;
    reference: string | null;
    request: ScreeningRequest;
    account_id: string;
    key_id: string;
    prefix: string;
    last4: string;
    plan: PlanId;
    account_status: string;
  }>`
    WITH picked AS (
      SELECT batch_id, index FROM batch_items
      WHERE status IN ('pending', 'running') AND (status = 'pending' OR claimed_until < ${now})
      ORDER BY queued_at, batch_id, index
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), started AS (
      UPDATE batches SET status = 'running'
      WHERE id IN (SELECT batch_id FROM picked) AND status = 'queued'
    )
    UPDATE batch_items i SET status = 'running', claim_token = ${token}, claimed_until = ${leaseEnd}
    FROM picked, batches b, accounts a, api_keys k
    WHERE i.batch_id = picked.batch_id AND i.index = picked.index AND b.id = i.batch_id
      AND a.id = b.account_id AND k.id = b.key_id
    RETURNING i.batch_id, i.index, i.reference, i.request, b.account_id, b.key_id, k.prefix, k.last4, a.plan,
      a.status AS account_status`.execute(db);
  return rows.map((r) => ({
    batchId: r.batch_id,
    index: Number(r.index),
    reference: r.reference,
    request: r.request,
    claimToken: token,
    accountId: r.account_id,
    keyId: r.key_id,
    keyPrefix: r.prefix,
    keyLast4: r.last4,
    plan: r.plan,
    accountActive: r.account_status === 'active',
  }));
}

/**
 * Puts every claimed item back in the queue: for the embedded database at start, where this process
 * is the only writer (its folder is locked), so any claim found is a dead process's and waiting for
 * its lease would only delay the batch. Never for PostgreSQL, where another instance may hold it.
 */
export async function releaseDeadClaims(db: Db): Promise<number> {
  const result = await db
    .updateTable('batch_items')
    .set({ status: 'pending', claim_token: null, claimed_until: null })
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * The statement recording screened items, run inside the statement that counts their screenings
 * (`FROM admitted`): the items are completed exactly when their screenings are counted and stored.
 * All items are of one claim (one token).
 */
export function itemsCompletedStatement(
  screened: readonly { item: ClaimedItem; result: StoredResult }[],
  now: Date,
): RawBuilder<unknown> {
  const rows = screened.map(
    ({ item, result }) =>
      sql`(${item.batchId}::uuid, ${item.index}::int, ${result.id}::uuid, ${result.risk_score}::int,
        ${result.risk_level}, ${result.flags.length}::int, ${result.complete}::boolean,
        ${JSON.stringify(result.sources_failed)}::jsonb, ${JSON.stringify(result.request)}::jsonb)`,
  );
  const token = screened[0]?.item.claimToken ?? null;
  return sql`
    UPDATE batch_items SET status = 'completed', screening_id = v.screening_id, risk_score = v.risk_score,
      risk_level = v.risk_level, flag_count = v.flag_count, complete = v.complete,
      sources_failed = v.sources_failed, screened_request = v.screened_request, finished_at = ${now},
      claimed_until = NULL
    FROM admitted, (VALUES ${sql.join(rows)}) AS v (batch_id, index, screening_id, risk_score, risk_level,
      flag_count, complete, sources_failed, screened_request)
    WHERE batch_items.batch_id = v.batch_id AND batch_items.index = v.index AND batch_items.claim_token = ${token}
    RETURNING 1`;
}

/** Records items of one claim that could not be screened (quota reached, every source failed, ...). */
export async function markItemsFailed(
  db: Db,
  failed: readonly { item: ClaimedItem; error: string }[],
  now: Date,
): Promise<void> {
  const rows = failed.map(({ item, error }) => sql`(${item.batchId}::uuid, ${item.index}::int, ${error})`);
  await sql`UPDATE batch_items SET status = 'failed', error = v.error, finished_at = ${now}, claimed_until = NULL
    FROM (VALUES ${sql.join(rows)}) AS v (batch_id, index, error)
    WHERE batch_items.batch_id = v.batch_id AND batch_items.index = v.index
      AND batch_items.claim_token = ${failed[0]?.item.claimToken ?? null} AND batch_items.status = 'running'`.execute(
    db,
  );
}

/**
 * The batch, when it is still open while none of its items is: the cheap test (an index of open
 * items) before counting and closing it.
 */
export async function closableBatch(
  db: Db,
  batchId: string,
): Promise<{ accountId: string; status: string; total: number } | undefined> {
  const { rows } = await sql<{ account_id: string; status: string; total: number }>`
    SELECT account_id, status, total FROM batches WHERE id = ${batchId} AND completed_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = ${batchId} AND status IN ('pending', 'running'))`.execute(
    db,
  );
  const row = rows[0];
  return row && { accountId: row.account_id, status: row.status, total: Number(row.total) };
}

/** Finished items of a batch per outcome, with the completed items' risk levels. */
export interface BatchCounts {
  completed: number;
  failed: number;
  cancelled: number;
  riskLevels: Record<string, number>;
}

export async function countItems(db: Db, batchId: string): Promise<BatchCounts> {
  const { rows } = await sql<{ status: string; risk_level: string | null; n: string | number }>`
    SELECT status, risk_level, count(*) AS n FROM batch_items WHERE batch_id = ${batchId}
    GROUP BY status, risk_level`.execute(db);
  const counts: BatchCounts = { completed: 0, failed: 0, cancelled: 0, riskLevels: {} };
  for (const row of rows) {
    const n = Number(row.n);
    if (row.status === 'completed') {
      counts.completed += n;
      if (row.risk_level) counts.riskLevels[row.risk_level] = (counts.riskLevels[row.risk_level] ?? 0) + n;
    } else if (row.status === 'failed') counts.failed += n;
    else if (row.status === 'cancelled') counts.cancelled += n;
  }
  return counts;
}

/**
 * Closes a batch whose items are all done (`completed`, or `cancelled` when it was cancelled),
 * once: the update only applies while `completed_at` is unset, and `alongside` (the batch.complete
 * outbox) reads it, so the event is queued exactly when the batch is closed. Returns whether this
 * call closed it.
 */
export async function closeBatch(
  db: Db,
  batchId: string,
  now: Date,
  alongside: (gate: string) => NamedStatements,
): Promise<boolean> {
  const { rows } = await sql<{ closed: string | number }>`
    WITH closed AS (
      UPDATE batches SET status = CASE WHEN status = 'cancelled' THEN 'cancelled' ELSE 'completed' END,
        completed_at = ${now}
      WHERE id = ${batchId} AND completed_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = ${batchId} AND status IN ('pending', 'running'))
      RETURNING 1
    )${followingCtes(alongside('closed'))}
    SELECT count(*) AS closed FROM closed`.execute(db);
  return Number(rows[0]?.closed ?? 0) > 0;
}

/** Cancels a batch's items not yet started; returns false when the batch is not the account's. */
export async function cancelBatch(db: Db, accountId: string, batchId: string, now: Date): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const { rows } = await sql`UPDATE batches SET status = CASE WHEN status IN ('queued', 'running')
        THEN 'cancelled' ELSE status END
      WHERE id = ${batchId} AND account_id = ${accountId} RETURNING 1`.execute(tx);
    if (rows.length === 0) return false;
    await sql`UPDATE batch_items SET status = 'cancelled', finished_at = ${now}
      WHERE batch_id = ${batchId} AND status = 'pending'`.execute(tx);
    return true;
  });
}
