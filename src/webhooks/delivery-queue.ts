import { sql } from 'kysely';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import type { DeliveryShares } from './delivery-shares.js';
import { DELIVERY_CLAIM_LEASE_MS, DELIVERY_CLAIM_SCAN_ROWS } from './webhook-policy.js';

/** A due delivery this instance has claimed, with everything one attempt needs. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  /** The number of the attempt about to be made (1 for the first). */
  attempt: number;
  webhookId: string;
  /** The webhook's account, whose share of the slots the attempt takes. */
  accountId: string;
  /** The webhook was deleted in the instant the delivery was queued: cancel it, send nothing. */
  webhookDeleted: boolean;
  url: string;
  secretCiphertext: string | null;
  event: string;
  payload: string;
}

/**
 * Makes the deliveries of up to `limit` queued events (the oldest first): one per webhook of the
 * event's account that subscribed to it when the event was stored and is not deleted, pending and
 * due at the event's time. The events are marked in the same statement, and `SKIP LOCKED` lets
 * instances fan out side by side: each event's deliveries are made exactly once. Returns the
 * number of events fanned out.
 */
export async function fanOutEvents(db: Db, limit: number): Promise<number> {
  const { rows } = await sql<{ events: string }>`
    WITH picked AS (
      SELECT id FROM webhook_events WHERE NOT fanned_out
      ORDER BY created_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), marked AS (
      UPDATE webhook_events e SET fanned_out = true FROM picked WHERE e.id = picked.id
      RETURNING e.id, e.account_id, e.event, e.created_at
    ), made AS (
      INSERT INTO webhook_deliveries (id, event_id, webhook_id, status, attempts, next_attempt_at, created_at)
      SELECT gen_random_uuid(), m.id, w.id, 'pending', 0, m.created_at, m.created_at
      FROM marked m JOIN webhooks w ON w.account_id = m.account_id AND w.deleted_at IS NULL
        AND m.event = ANY(w.events) AND w.created_at <= m.created_at
      RETURNING 1
    )
    SELECT count(*) AS events FROM marked`.execute(db);
  return Number(rows[0]?.events ?? 0);
}

/**
 * Claims up to `limit` due deliveries for this instance, fairly between accounts: the oldest due
 * first within each account, and the accounts in turn (each account's first, then each one's
 * second, ...; an account with fewer attempts in flight comes first), none beyond its share of the
 * slots nor a webhook beyond its own (`shares`: this instance's attempts in flight). The scan of
 * the index of due deliveries skips the rows of accounts and webhooks at their share, so the
 * backlog of one account cannot hide another's deliveries behind it. `FOR UPDATE SKIP LOCKED` lets
 * instances claim side by side without waiting on or taking each other's rows. The claim moves the
 * row's due time to the end of a lease and marks it with a token, in the same statement: no other
 * claimer sees it due until the attempt is recorded, or the lease runs out because this instance
 * died mid-attempt.
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  limit: number,
  shares: DeliveryShares,
): Promise<ClaimedDelivery[]> {
  const token = newId();
  const leaseEnd = new Date(now.getTime() + DELIVERY_CLAIM_LEASE_MS);
  const accounts = shares.byAccount();
  const webhooks = shares.byWebhook();
  const { rows } = await sql<{
    id: string;
    attempts: number;
    webhook_id: string;
    account_id: string;
    deleted: boolean;
    url: string;
    secret_ciphertext: string | null;
    event: string;
    payload: string;
  }>`
    WITH scanned AS (
      SELECT d.id, d.webhook_id, w.account_id, d.next_attempt_at
      FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= ${now}
        AND d.webhook_id <> ALL(${webhooks.full}::uuid[])
        AND w.account_id <> ALL(${accounts.full}::uuid[])
      ORDER BY d.next_attempt_at
      LIMIT ${DELIVERY_CLAIM_SCAN_ROWS}
      FOR UPDATE OF d SKIP LOCKED
    ), within_webhook AS (
      SELECT s.id, s.account_id, s.next_attempt_at FROM (
        SELECT scanned.*, row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at) AS place
        FROM scanned
      ) s
      LEFT JOIN unnest(${webhooks.ids}::uuid[], ${webhooks.counts}::int[]) AS busy(id, n) ON busy.id = s.webhook_id
      WHERE s.place + coalesce(busy.n, 0) <= ${shares.perWebhook}
    ), placed AS (
      SELECT x.id, x.next_attempt_at,
        row_number() OVER (PARTITION BY x.account_id ORDER BY x.next_attempt_at) + coalesce(busy.n, 0) AS place
      FROM within_webhook x
      LEFT JOIN unnest(${accounts.ids}::uuid[], ${accounts.counts}::int[]) AS busy(id, n) ON busy.id = x.account_id
    ), picked AS (
      SELECT id FROM placed WHERE place <= ${shares.perAccount}
      ORDER BY place, next_attempt_at
      LIMIT ${limit}
    )
    UPDATE webhook_deliveries d SET next_attempt_at = ${leaseEnd}, claim_token = ${token}
    FROM picked, webhooks w, webhook_events e
    WHERE d.id = picked.id AND w.id = d.webhook_id AND e.id = d.event_id
    RETURNING d.id, d.attempts, w.id AS webhook_id, w.account_id, w.deleted_at IS NOT NULL AS deleted,
      w.url, w.secret_ciphertext, e.event, e.payload`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    claimToken: token,
    attempt: Number(r.attempts) + 1,
    webhookId: r.webhook_id,
    accountId: r.account_id,
    webhookDeleted: r.deleted,
    url: r.url,
    secretCiphertext: r.secret_ciphertext,
    event: r.event,
    payload: r.payload,
  }));
}

/** Gives a claimed delivery back untouched (an attempt abandoned at shutdown): it is due again at once. */
export async function releaseClaim(db: Db, delivery: ClaimedDelivery, now: Date): Promise<void> {
  await sql`UPDATE webhook_deliveries SET next_attempt_at = ${now}, claim_token = NULL
    WHERE id = ${delivery.id} AND claim_token = ${delivery.claimToken}`.execute(db);
}

/** Cancels a claimed delivery whose webhook is gone, without an attempt. */
export async function cancelClaimed(db: Db, delivery: ClaimedDelivery, now: Date): Promise<void> {
  await sql`UPDATE webhook_deliveries SET status = 'cancelled', finished_at = ${now}, claim_token = NULL
    WHERE id = ${delivery.id} AND claim_token = ${delivery.claimToken} AND status = 'pending'`.execute(db);
}

/**
 * Removes delivery history older than `cutoff` (events with their deliveries and attempts; an event
 * not fanned out yet or with a delivery still pending stays), and webhooks deleted before it that
 * nothing refers to.
 */
export async function purgeDeliveryHistory(db: Db, cutoff: Date, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await sql`
      DELETE FROM webhook_events WHERE id IN (
        SELECT e.id FROM webhook_events e WHERE e.created_at < ${cutoff} AND e.fanned_out
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
        ORDER BY e.created_at LIMIT ${batchSize}
      )`.execute(db);
    const n = Number(deleted.numAffectedRows ?? 0);
    total += n;
    if (n < batchSize) break;
  }
  await sql`DELETE FROM webhooks w WHERE w.deleted_at < ${cutoff}
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id)`.execute(db);
  return total;
}
