import { type RawBuilder, sql } from 'kysely';
import { newId } from '../ids.js';
import type { WebhookEvent } from './webhook-policy.js';

/** One event to queue: what it is about and the exact body every webhook receives. */
export interface QueuedEvent {
  subjectId: string;
  payload: string;
}

/**
 * The outbox statement for events of one kind: the event rows, only when a webhook of the account
 * subscribes to it. It reads the statement named `gate` (`admitted` for screenings: the one that
 * counts them), so it is part of the statement that records what the events report: both are
 * written, or neither. The deliveries (one per event and subscribed webhook) are made by the
 * delivery worker (`fanOutEvents`), so a screening writes one row here however many webhooks
 * the account has.
 */
export function enqueueEventStatements(
  accountId: string,
  event: WebhookEvent,
  events: readonly QueuedEvent[],
  now: Date,
  gate = 'admitted',
): Record<string, RawBuilder<unknown>> {
  const rows = events.map((e) => sql`(${newId()}::uuid, ${e.subjectId}::uuid, ${e.payload})`);
  return outboxStatement(accountId, event, now, {
    id: sql`v.id`,
    subjectId: sql`v.subject_id`,
    payload: sql`v.payload`,
    from: sql`${sql.id(gate)}, (VALUES ${sql.join(rows)}) AS v (id, subject_id, payload)`,
  });
}

/**
 * The one statement every outbox write is: event rows of `event`, with the columns `select`
 * gives from its `from`, only when a webhook of the account subscribes to the event.
 */
export function outboxStatement(
  accountId: string,
  event: WebhookEvent,
  now: Date,
  select: Record<'id' | 'subjectId' | 'payload' | 'from', RawBuilder<unknown>>,
): Record<string, RawBuilder<unknown>> {
  return {
    webhook_event: sql`
      INSERT INTO webhook_events (id, account_id, event, subject_id, payload, created_at, fanned_out)
      SELECT ${select.id}, ${accountId}, ${event}, ${select.subjectId}, ${select.payload}, ${now}, false
      FROM ${select.from}
      WHERE EXISTS (SELECT 1 FROM webhooks WHERE webhooks.account_id = ${accountId}
        AND webhooks.deleted_at IS NULL AND ${event}::text = ANY(webhooks.events))
      RETURNING id`,
  };
}
