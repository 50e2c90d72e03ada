import { sql } from 'kysely';
import type { Db } from '../store/database.js';

/** A scrape waits at most this long for the queue depths; past it they are left out of that scrape. */
export const QUEUE_DEPTH_TIMEOUT_MS = 1_000;

export interface QueueDepths {
  batchItems: number;
  webhookEvents: number;
  webhookDeliveries: number;
  /** List versions whose monitor run is not done. */
  listChanges: number;
}

/**
 * The depths of the database's work queues, counted on their partial indexes (only open rows are
 * in them). Bounded twice: the statement by `statement_timeout`, and the wait (a busy pool, an
 * unreachable database) by a timer, so a slow database never holds a scrape; undefined then.
 */
export async function readQueueDepths(
  db: Db,
  onError: (error: unknown) => void,
  timeoutMs = QUEUE_DEPTH_TIMEOUT_MS,
): Promise<QueueDepths | undefined> {
  const query = db.transaction().execute(async (trx) => {
    await sql`SET LOCAL statement_timeout = ${sql.raw(String(Math.floor(timeoutMs)))}`.execute(trx);
    const { rows } = await sql<{
      batch_items: string;
      webhook_events: string;
      webhook_deliveries: string;
      list_changes: string;
    }>`
      SELECT
        (SELECT count(*) FROM batch_items WHERE status IN ('pending', 'running')) AS batch_items,
        (SELECT count(*) FROM webhook_events WHERE NOT fanned_out) AS webhook_events,
        (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS webhook_deliveries,
        (SELECT count(*) FROM list_changes WHERE done_at IS NULL) AS list_changes`.execute(trx);
    const row = rows[0]!;
    return {
      batchItems: Number(row.batch_items),
      webhookEvents: Number(row.webhook_events),
      webhookDeliveries: Number(row.webhook_deliveries),
      listChanges: Number(row.list_changes),
    };
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  try {
    return await Promise.race([
      query.catch((error: unknown) => {
        onError(error);
        return undefined;
      }),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
