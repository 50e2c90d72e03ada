import { type RawBuilder, sql } from 'kysely';
import { PLANS } from '../accounts/plans.js';
import type { UsageSubject } from '../accounts/usage.js';
import type { Clock } from '../clock.js';
import { outboxStatement } from '../webhooks/webhook-outbox.js';
import type { WebhookEvent } from '../webhooks/webhook-policy.js';
import type { WebhookSubscriptions } from '../webhooks/webhook-subscriptions.js';
import type { FollowUpWork, ScreeningFollowUp } from './screening-service.js';
import { STORED_SCREENINGS } from './screening-store.js';

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
