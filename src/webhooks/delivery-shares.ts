import { DELIVERY_CONCURRENCY_PER_ACCOUNT, DELIVERY_CONCURRENCY_PER_WEBHOOK } from './webhook-policy.js';

/** Counts per id, as the claim statement takes them: two arrays of the same length. */
export interface InFlightCounts {
  ids: string[];
  counts: number[];
  /** The ids at their share: the claim's scan skips their due rows. */
  full: string[];
}

class Counter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly share: number) {}

  add(id: string): void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }

  remove(id: string): void {
    const left = (this.counts.get(id) ?? 0) - 1;
    if (left > 0) this.counts.set(id, left);
    else this.counts.delete(id);
  }

  forClaim(): InFlightCounts {
    const ids = [...this.counts.keys()];
    const counts = ids.map((id) => this.counts.get(id)!);
    return { ids, counts, full: ids.filter((_, i) => counts[i]! >= this.share) };
  }
}

/**
 * The attempts an instance has in flight, per account and per webhook, so that a claim keeps each
 * within its share of the slots (`DELIVERY_CONCURRENCY_PER_ACCOUNT`, `..._PER_WEBHOOK`): one
 * account's slow or hanging receivers hold at most its share, and the other accounts' deliveries
 * are claimed at once, however many of its deliveries are due before them.
 */
export class DeliveryShares {
  readonly perAccount = DELIVERY_CONCURRENCY_PER_ACCOUNT;
  readonly perWebhook = DELIVERY_CONCURRENCY_PER_WEBHOOK;
  private readonly accounts = new Counter(this.perAccount);
  private readonly webhooks = new Counter(this.perWebhook);

  begin(delivery: { accountId: string; webhookId: string }): void {
    this.accounts.add(delivery.accountId);
    this.webhooks.add(delivery.webhookId);
  }

  end(delivery: { accountId: string; webhookId: string }): void {
    this.accounts.remove(delivery.accountId);
    this.webhooks.remove(delivery.webhookId);
  }

  byAccount(): InFlightCounts {
    return this.accounts.forClaim();
  }

  byWebhook(): InFlightCounts {
    return this.webhooks.forClaim();
  }
}
