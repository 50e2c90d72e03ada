import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/** How many results the in-memory cache keeps at most, and their total size in UTF-8 bytes. */
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

/**
 * The cache of a single instance. Each result is kept as its UTF-8 bytes in a buffer of its own,
 * outside the V8 heap, not as a string: a live result (~10 KB of JSON) cached as a string was
 * copied by two young-generation collections and then stayed in the old generation for hours,
 * where every full collection traced it and V8 sized its heap room by it (docs/benchmarks.md,
 * "Soak"). Bytes of their own, not a slice of Node's shared pool, so a small result cannot keep a
 * pool slab alive. The price is an encoding per live screening (4-6 us for a 6 KB result, 12-18 us
 * when it holds non-Latin text, on the development machine) and a decoding per hit (1-6 us).
 */
export class MemoryResultCache implements ResultCache {
  private readonly entries: LRUCache<string, Buffer>;

  constructor(maxEntries = MEMORY_CACHE_MAX_ENTRIES, maxBytes = MEMORY_CACHE_MAX_BYTES) {
    this.entries = new LRUCache<string, Buffer>({
      max: maxEntries,
      maxSize: maxBytes,
      sizeCalculation: (value) => value.byteLength,
    });
  }

  async get(key: string): Promise<string | undefined> {
    return this.entries.get(key)?.toString('utf8');
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(value, 'utf8'));
    bytes.write(value, 'utf8');
    this.entries.set(key, bytes, { ttl: ttlMs });
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
