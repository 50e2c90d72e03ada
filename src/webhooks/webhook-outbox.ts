import { type RawBuilder, sql } from 'kysely';
import { PLANS } from '../accounts/plans.js';
import type { UsageSubject } from '../accounts/usage.js';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { FollowUpWork, ScreeningFollowUp } from '../screening/screening-service.js';
import { STORED_SCREENINGS } from '../screening/screening-store.js';
import type { WebhookEvent } from './webhook-policy.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.js';

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
function outboxStatement(
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

/**
 * The screening's follow-up for webhooks: plans with webhooks get the outbox statements with the
 * live screenings (unless the account certainly has no subscribed webhook), and the local delivery
 * worker is nudged, so the delivery leaves at once instead of at the next poll.
 */
export class ScreeningWebhooks implements ScreeningFollowUp {
  constructor(
    private readonly clock: Clock,
    private readonly subscriptions: WebhookSubscriptions,
    private readonly notify: () => void,
  ) {}

  async prepare(subject: UsageSubject, liveScreenings: number): Promise<FollowUpWork | undefined> {
    if (!PLANS[subject.plan].webhooks || liveScreenings === 0) return undefined;
    if (!(await this.subscriptions.mayHaveSubscribers(subject.accountId, 'screening.complete')))
      return undefined;
    return {
      statements: screeningEventStatements(subject.accountId, this.clock.now()),
      stored: this.notify,
    };
  }
}

/**
 * The outbox statement of the screenings being stored: one `screening.complete` event per row of
 * the statement that stores them (`STORED_SCREENINGS`), when a webhook of the account subscribes to
 * it. The body is the event object with the result as the API answered it (`cache_hit: false`
 * added), made by the database from the stored result's JSON text. With PostgreSQL, where an
 * instance cannot know that no other has just registered a webhook, this statement runs with every
 * live screening; a body built here was a second copy of the ~10 KB result sent with it even when
 * no webhook subscribed, work and garbage for every screening. `result` is `json`, kept as written,
 * so the body is byte for byte the one `JSON.stringify` would give.
 */
function screeningEventStatements(accountId: string, now: Date): Record<string, RawBuilder<unknown>> {
  const event: WebhookEvent = 'screening.complete';
  return outboxStatement(accountId, event, now, {
    id: sql`gen_random_uuid()`,
    subjectId: sql`s.id`,
    payload: sql`'{"event":' || to_json(${event}::text)::text || ',"screening_id":' || (s.result -> 'id')::text
      || ',"timestamp":' || (s.result -> 'timestamp')::text
      || ',"data":' || left(s.result::text, -1) || ',"cache_hit":false}}'`,
    from: sql`${sql.id(STORED_SCREENINGS)} AS s`,
  });
}
