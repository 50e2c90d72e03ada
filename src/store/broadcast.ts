import type { Redis } from 'ioredis';

export type BroadcastHandler = (message: string) => void;

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
   * connection dropped and came back); `undefined` while they are being missed right now.
   * Caches keyed on it can never outlive a missed invalidation.
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

export class RedisBroadcast implements Broadcast {
  private readonly local = new LocalBroadcast(true);
  private readonly subscriber: Redis;
  private connectionEpoch = 0;

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
      void this.local.publish(channel.slice(this.channelPrefix.length), message);
    });
  }

  async publish(channel: string, message: string): Promise<void> {
    // The local delivery does not depend on Redis: this instance must never serve a revoked key.
    await this.local.publish(channel, message);
    try {
      await this.publisher.publish(this.channelPrefix + channel, message);
    } catch {
      // Other instances fall back to their short cache lifetime while Redis is down.
    }
  }

  async subscribe(channel: string, handler: BroadcastHandler): Promise<void> {
    await this.local.subscribe(channel, (message) => handler(message));
    void this.subscriber.subscribe(this.channelPrefix + channel).catch(() => {});
  }

  epoch(): number | undefined {
    return this.subscriber.status === 'ready' ? this.connectionEpoch : undefined;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}
