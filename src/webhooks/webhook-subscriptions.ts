import { LRUCache } from 'lru-cache';
import type { Db } from '../store/database.js';

const REMEMBERED_ACCOUNTS_MAX = 100_000;

/**
 * Which events an account's webhooks subscribe to, so that a screening of an account without
 * webhooks skips the outbox statements. Only where this process is the one writer of webhooks
 * (the embedded database: its folder is locked) is the answer remembered; each registration or
 * deletion here forgets it. With PostgreSQL another instance may register a webhook at any moment,
 * so the answer is always "maybe" and the outbox statements (which find out in SQL) always run.
 */
export class WebhookSubscriptions {
  private readonly known = new LRUCache<string, ReadonlySet<string>>({ max: REMEMBERED_ACCOUNTS_MAX });
  /** Changes with every registration or deletion, so a read racing with one is not remembered. */
  private generation = 0;

  constructor(
    private readonly db: Db,
    private readonly soleWriter: boolean,
  ) {}

  /** False only when it is certain that no webhook of the account subscribes to the event. */
  async mayHaveSubscribers(accountId: string, event: string): Promise<boolean> {
    if (!this.soleWriter) return true;
    let events = this.known.get(accountId);
    if (!events) {
      const before = this.generation;
      const rows = await this.db
        .selectFrom('webhooks')
        .select('events')
        .where('account_id', '=', accountId)
        .where('deleted_at', 'is', null)
        .execute();
      events = new Set(rows.flatMap((r) => r.events));
      if (this.generation === before) this.known.set(accountId, events);
    }
    return events.has(event);
  }

  /** Called once a registration or deletion of the account's webhooks is committed. */
  changed(accountId: string): void {
    this.generation++;
    this.known.delete(accountId);
  }
}
