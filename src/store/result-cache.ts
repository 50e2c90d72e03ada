import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/** How many results the in-memory cache keeps at most, and their total size. */
export const MEMORY_CACHE_MAX_ENTRIES = 10_000;
export const MEMORY_CACHE_MAX_BYTES = 200 * 1024 * 1024;

/**
 * A cache of serialised results with a time to live. It never fails its caller: a backend that
 * errs reads as a miss and drops the write, and `isUp()` tells health about it.
 */
export interface ResultCache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  isUp(): boolean;
}

export class MemoryResultCache implements ResultCache {
  private readonly entries = new LRUCache<string, string>({
    max: MEMORY_CACHE_MAX_ENTRIES,
    maxSize: MEMORY_CACHE_MAX_BYTES,
    sizeCalculation: (value) => value.length * 2,
  });

  async get(key: string): Promise<string | undefined> {
    return this.entries.get(key);
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    this.entries.set(key, value, { ttl: ttlMs });
  }

  isUp(): boolean {
    return true;
  }
}

export class RedisResultCache implements ResultCache {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  async get(key: string): Promise<string | undefined> {
    if (!this.isUp()) return undefined;
    try {
      return (await this.redis.get(this.keyPrefix + key)) ?? undefined;
    } catch {
      return undefined;
    }
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (!this.isUp()) return;
    try {
      await this.redis.set(this.keyPrefix + key, value, 'PX', ttlMs);
    } catch {
      // A lost cache write only costs a later recomputation.
    }
  }

  isUp(): boolean {
    return this.redis.status === 'ready';
  }
}
