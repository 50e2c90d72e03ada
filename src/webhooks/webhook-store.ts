import { type Selectable, sql } from 'kysely';
import type { Db } from '../store/database.js';
import type { WebhookTable } from '../store/schema.js';
import type { WebhookEvent } from './webhook-policy.js';

export type WebhookStatus = 'active' | 'degraded';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** A webhook as its account sees it (never its secret). */
export interface WebhookView {
  id: string;
  url: string;
  events: WebhookEvent[];
  status: WebhookStatus;
  consecutive_failures: number;
  last_delivery_at: string | null;
  created_at: string;
}

/** One attempt of one delivery, for the account's delivery log. */
export interface AttemptView {
  delivery_id: string;
  event: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: string | null;
  delivery_status: DeliveryStatus;
}

/** The authenticated data of a webhook's sealed secret: the secret opens only on its own row. */
export function webhookSecretContext(webhookId: string): string {
  return `webhook:${webhookId}`;
}

type WebhookRow = Pick<
  Selectable<WebhookTable>,
  'id' | 'url' | 'events' | 'status' | 'consecutive_failures' | 'last_delivery_at' | 'created_at'
>;

const VIEW_COLUMNS = [
  'id',
  'url',
  'events',
  'status',
  'consecutive_failures',
  'last_delivery_at',
  'created_at',
] as const;

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

function toView(row: WebhookRow): WebhookView {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEvent[],
    status: row.status as WebhookStatus,
    consecutive_failures: row.consecutive_failures,
    last_delivery_at: row.last_delivery_at === null ? null : iso(row.last_delivery_at),
    created_at: iso(row.created_at),
  };
}

export interface NewWebhook {
  id: string;
  accountId: string;
  url: string;
  events: WebhookEvent[];
  secretCiphertext: string;
  createdAt: Date;
}

/**
 * Inserts the webhook unless the account already has `max`; returns undefined when it has. The
 * account row is locked for the count, so concurrent registrations cannot pass the limit together.
 */
export async function insertWebhook(
  db: Db,
  webhook: NewWebhook,
  max: number,
): Promise<WebhookView | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT id FROM accounts WHERE id = ${webhook.accountId} FOR NO KEY UPDATE`.execute(trx);
    const { count } = await trx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('account_id', '=', webhook.accountId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(count) >= max) return undefined;
    const row = await trx
      .insertInto('webhooks')
      .values({
        id: webhook.id,
        account_id: webhook.accountId,
        url: webhook.url,
        events: webhook.events,
        secret_ciphertext: webhook.secretCiphertext,
        status: 'active',
        consecutive_failures: 0,
        created_at: webhook.createdAt,
      })
      .returning(VIEW_COLUMNS)
      .executeTakeFirstOrThrow();
    return toView(row);
  });
}

export async function listWebhooks(db: Db, accountId: string): Promise<WebhookView[]> {
  const rows = await db
    .selectFrom('webhooks')
    .select(VIEW_COLUMNS)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toView);
}

export async function findWebhook(db: Db, accountId: string, id: string): Promise<WebhookView | undefined> {
  const row = await db
    .selectFrom('webhooks')
    .select(VIEW_COLUMNS)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row ? toView(row) : undefined;
}

/**
 * Deletes the webhook (its secret is erased; the row stays for the delivery history) and cancels
 * its pending deliveries, in one transaction. Returns its URL, or undefined when there was no such
 * webhook.
 */
export async function deleteWebhook(
  db: Db,
  accountId: string,
  id: string,
  now: Date,
): Promise<{ url: string } | undefined> {
  return db.transaction().execute(async (trx) => {
    const deleted = await trx
      .updateTable('webhooks')
      .set({ deleted_at: now, secret_ciphertext: null })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .returning(['id', 'url'])
      .executeTakeFirst();
    if (!deleted) return undefined;
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'cancelled', finished_at: now, claim_token: null })
      .where('webhook_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    return { url: deleted.url };
  });
}

/** The webhook's latest attempts, newest first. */
export async function listAttempts(db: Db, webhookId: string, limit: number): Promise<AttemptView[]> {
  const rows = await db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .select([
      'a.delivery_id',
      'e.event',
      'a.attempt',
      'a.attempted_at',
      'a.status_code',
      'a.duration_ms',
      'a.error',
      'a.next_retry_at',
      'd.status as delivery_status',
    ])
    .where('a.webhook_id', '=', webhookId)
    .orderBy('a.attempted_at', 'desc')
    .orderBy('a.attempt', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    delivery_id: r.delivery_id,
    event: r.event,
    attempt: r.attempt,
    attempted_at: iso(r.attempted_at),
    status_code: r.status_code,
    duration_ms: Number(r.duration_ms),
    error: r.error,
    next_retry_at: r.next_retry_at === null ? null : iso(r.next_retry_at),
    delivery_status: r.delivery_status as DeliveryStatus,
  }));
}
