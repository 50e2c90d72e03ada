import type { Redis } from 'ioredis';

export type BroadcastHandler = (message: string) => void;

/** How often each instance sends a heartbeat through Redis to its own subscriber connection. */
export const BROADCAST_HEARTBEAT_INTERVAL_MS = 250;
/**
 * Silence on the subscriber connection longer than this means messages may be missed right now:
 * a stopped or cut-off Redis keeps the connection looking ready. It is the revocation bound.
 */
export const BROADCAST_SILENCE_MS = 1_000;
const HEARTBEAT_CHANNEL = 'broadcast-heartbeat';

/**
 * Fan-out of small invalidation messages (revoked keys, suspended accounts) to every instance.
 * With Redis it is pub/sub on a dedicated connection; without Redis there is one instance, and
 * the message is delivered in-process.
 */
export interface Broadcast {
  publish(channel: string, message: string): Promise<void>;
  subscribe(channel: string, handler: BroadcastHandler): Promise<void>;
  /**
   * Changes whenever messages from other instances may have been missed (the subscriber
   * connection dropped and came back, or went silent and spoke again); `undefined` while they
   * may be being missed right now. Caches keyed on it can never outlive a missed invalidation.
   */
  epoch(): number | undefined;
  close(): Promise<void>;
}

export class LocalBroadcast implements Broadcast {
  private readonly handlers = new Map<string, BroadcastHandler[]>();

  /**
   * `soleInstance`: this process is the only one serving (the embedded database). Otherwise other
   * instances exist that this in-process delivery cannot reach, so nothing is ever confirmed.
   */
  constructor(private readonly soleInstance: boolean) {}

  async publish(channel: string, message: string): Promise<void> {
    for (const handler of this.handlers.get(channel) ?? []) handler(message);
  }

  async subscribe(channel: string, handler: BroadcastHandler): Promise<void> {
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
  }

  epoch(): number | undefined {
    return this.soleInstance ? 0 : undefined;
  }

  async close(): Promise<void> {}
}

/**
 * Pub/sub on a connection of its own. A hung Redis (SIGSTOP, a partition without a reset) leaves
 * that connection "ready" while nothing arrives, so each instance publishes a heartbeat that comes
 * back through its own subscription: the link counts as working only while something (a heartbeat,
 * anyone's, or an invalidation) arrived within `BROADCAST_SILENCE_MS`. Redis delivers messages in
 * the order it received them, so whatever was published before a message that arrived has arrived.
 */
export class RedisBroadcast implements Broadcast {
  private readonly local = new LocalBroadcast(true);
  private readonly subscriber: Redis;
  private connectionEpoch = 0;
  /** `performance.now()` when the subscriber connection last delivered a message. */
  private lastHeardAt: number | undefined;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly publisher: Redis,
    private readonly channelPrefix: string,
  ) {
    // Subscriptions are queued until the connection is up and renewed after every reconnect.
    this.subscriber = publisher.duplicate({ enableOfflineQueue: true, commandTimeout: undefined });
    this.subscriber.on('error', () => {});
    this.subscriber.on('ready', () => {
      this.connectionEpoch += 1;
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      this.heard();
      const name = channel.slice(this.channelPrefix.length);
      if (name !== HEARTBEAT_CHANNEL) void this.local.publish(name, message);
    });
    void this.subscriber.subscribe(this.channelPrefix + HEARTBEAT_CHANNEL).catch(() => {});
    this.heartbeat = setInterval(() => this.beat(), BROADCAST_HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
  }

  async publish(channel: string, message: string): Promise<void> {
    // The local delivery does not depend on Redis: this instance must never serve a revoked key.
    await this.local.publish(channel, message);
    try {
      await this.publisher.publish(this.channelPrefix + channel, message);
    } catch {
      // Other instances stop trusting their caches once their heartbeats stop coming back too.
    }
  }

  async subscribe(channel: string, handler: BroadcastHandler): Promise<void> {
    await this.local.subscribe(channel, (message) => handler(message));
    void this.subscriber.subscribe(this.channelPrefix + channel).catch(() => {});
  }

  epoch(): number | undefined {
    if (this.subscriber.status !== 'ready' || this.silent()) return undefined;
    return this.connectionEpoch;
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    this.subscriber.disconnect();
  }

  private beat(): void {
    // Fails at once while the publisher is disconnected, and at its command timeout while Redis hangs.
    this.publisher.publish(this.channelPrefix + HEARTBEAT_CHANNEL, '').catch(() => {});
  }

  private heard(): void {
    // Speaking again after a silence: what was cached before it may have missed an invalidation
    // (a message published during a partition is lost), so it is not confirmed any more.
    if (this.silent()) this.connectionEpoch += 1;
    this.lastHeardAt = performance.now();
  }

  private silent(): boolean {
    return this.lastHeardAt === undefined || performance.now() - this.lastHeardAt > BROADCAST_SILENCE_MS;
  }
}
