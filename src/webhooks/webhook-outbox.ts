import { type RawBuilder, sql } from 'kysely';
import { PLANS } from '../accounts/plans.js';
import type { UsageSubject } from '../accounts/usage.js';
import type { Clock } from '../clock.js';
import { newId } from '../ids.js';
import type { StoredResult } from '../screening/screening-result.js';
import type { FollowUpWork, ScreeningFollowUp } from '../screening/screening-service.js';
import type { WebhookEvent } from './webhook-policy.js';
import type { WebhookSubscriptions } from './webhook-subscriptions.js';

/**
 * The body every subscribed webhook receives after a live screening: the result as the API answered
 * it (`cache_hit: false` added). Built around the result's JSON, already serialised for the row and
 * the cache, rather than serialising its ~10 KB a second time on the screening's path.
 */
export function screeningCompletePayload(result: StoredResult, resultJson: string): string {
  const data = `${resultJson.slice(0, -1)},"cache_hit":false}`;
  return `{"event":"screening.complete","screening_id":${JSON.stringify(result.id)},"timestamp":${JSON.stringify(result.timestamp)},"data":${data}}`;
}

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
  return {
    webhook_event: sql`
      INSERT INTO webhook_events (id, account_id, event, subject_id, payload, created_at, fanned_out)
      SELECT v.id, ${accountId}, ${event}, v.subject_id, v.payload, ${now}, false
      FROM ${sql.id(gate)}, (VALUES ${sql.join(rows)}) AS v (id, subject_id, payload)
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

  async prepare(
    subject: UsageSubject,
    screenings: readonly { result: StoredResult; resultJson: string }[],
  ): Promise<FollowUpWork | undefined> {
    if (!PLANS[subject.plan].webhooks || screenings.length === 0) return undefined;
    if (!(await this.subscriptions.mayHaveSubscribers(subject.accountId, 'screening.complete')))
      return undefined;
    const events = screenings.map(({ result, resultJson }) => ({
      subjectId: result.id,
      payload: screeningCompletePayload(result, resultJson),
    }));
    return {
      statements: enqueueEventStatements(subject.accountId, 'screening.complete', events, this.clock.now()),
      stored: this.notify,
    };
  }
}
