import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { ownBytes } from '../own-bytes.js';
import type { RedisCircuit } from './redis-circuit.js';

/** How many results the in-memory cache keeps at most, and their total size compressed. */
export const MEMORY_CACHE_MAX_ENTRIES = 10_000;
export const MEMORY_CACHE_MAX_BYTES = 200 * 1024 * 1024;

/**
 * A cache of serialised results (their UTF-8 JSON bytes) with a time to live. It never fails its
 * caller: a backend that errs reads as a miss and drops the write, and `isUp()` tells health about
 * it. Values are not copied: a caller must not change the bytes it cached or was answered.
 */
export interface ResultCache {
  get(key: string): Promise<Buffer | undefined>;
  set(key: string, value: Buffer, ttlMs: number): Promise<void>;
  isUp(): boolean;
}

/**
 * The cache of a single instance. Each result is kept as bytes, outside the V8 heap, not as a
 * string: a live result (~10 KB of JSON) cached as a string was copied by two young-generation
 * collections and then stayed in the old generation for hours, where every full collection traced
 * it and V8 sized its heap room by it. A hit gives back the bytes the result was cached with.
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

  async get(key: string): Promise<Buffer | undefined> {
    const kept = this.entries.get(key);
    return kept && inflateRawSync(kept);
  }

  /**
   * Kept compressed (deflate at its fastest level): a result's JSON shrinks 4-5 times (a full cache
   * measured 146 MB, then 23 MB), for 15-240 µs per write and 8-50 µs per hit on the main thread.
   */
  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    // zlib writes into chunks of 16 KB: a small result must not keep its chunk alive.
    this.entries.set(key, ownBytes(deflateRawSync(value, { level: 1 })), { ttl: ttlMs });
  }

  isUp(): boolean {
    return true;
  }
}

/** The cache shared by every instance. While the circuit says Redis hangs, it reads as empty at once. */
export class RedisResultCache implements ResultCache {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly circuit?: RedisCircuit,
  ) {}

  async get(key: string): Promise<Buffer | undefined> {
    if (!this.isUp()) return undefined;
    try {
      return (await this.redis.getBuffer(this.keyPrefix + key)) ?? undefined;
    } catch {
      this.circuit?.commandFailed();
      return undefined;
    }
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    if (!this.isUp()) return;
    try {
      await this.redis.set(this.keyPrefix + key, value, 'PX', ttlMs);
    } catch {
      // A lost cache write only costs a later recomputation.
      this.circuit?.commandFailed();
    }
  }

  isUp(): boolean {
    return this.redis.status === 'ready' && this.circuit?.allows() !== false;
  }
}
