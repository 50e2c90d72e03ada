import { sql } from 'kysely';
import { newId } from '../ids.js';
import type { Db } from '../store/database.js';
import { DELIVERY_CLAIM_LEASE_MS } from './webhook-policy.js';

/** A due delivery this instance has claimed, with everything one attempt needs. */
export interface ClaimedDelivery {
  id: string;
  claimToken: string;
  /** The number of the attempt about to be made (1 for the first). */
  attempt: number;
  webhookId: string;
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
 * Claims up to `limit` due deliveries for this instance, oldest due first, straight from the
 * index of pending deliveries. `FOR UPDATE SKIP LOCKED` lets instances claim side by side
 * without waiting on or taking each other's rows. The claim moves the row's due time to the end of
 * a lease and marks it with a token, in the same statement: no other claimer sees it due until the
 * attempt is recorded, or the lease runs out because this instance died mid-attempt.
 */
export async function claimDueDeliveries(db: Db, now: Date, limit: number): Promise<ClaimedDelivery[]> {
  const token = newId();
  const leaseEnd = new Date(now.getTime() + DELIVERY_CLAIM_LEASE_MS);
  const { rows } = await sql<{
    id: string;
    attempts: number;
    webhook_id: string;
    deleted: boolean;
    url: string;
    secret_ciphertext: string | null;
    event: string;
    payload: string;
  }>`
    UPDATE webhook_deliveries d SET next_attempt_at = ${leaseEnd}, claim_token = ${token}
    FROM (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ${now}
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ) picked, webhooks w, webhook_events e
    WHERE d.id = picked.id AND w.id = d.webhook_id AND e.id = d.event_id
    RETURNING d.id, d.attempts, w.id AS webhook_id, w.deleted_at IS NOT NULL AS deleted, w.url,
      w.secret_ciphertext, e.event, e.payload`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    claimToken: token,
    attempt: Number(r.attempts) + 1,
    webhookId: r.webhook_id,
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
