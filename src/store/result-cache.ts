import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { RedisCircuit } from './redis-circuit.js';

/** How many results the in-memory cache keeps at most, and their total size in UTF-8 bytes. */
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
 * The cache of a single instance. Each result is kept as the bytes it was given, outside the V8
 * heap, not as a string: a live result (~10 KB of JSON) cached as a string was copied by two
 * young-generation collections and then stayed in the old generation for hours, where every full
 * collection traced it and V8 sized its heap room by it. The service
 * caches the buffer its result was encoded into (`encodeResult`), which is its own, not a slice of
 * Node's shared pool, so a small result cannot keep a pool slab alive.
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
    return this.entries.get(key);
  }

  async set(key: string, value: Buffer, ttlMs: number): Promise<void> {
    this.entries.set(key, ownBytes(value), { ttl: ttlMs });
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

/**
 * The bytes in a buffer of their own: a view into a larger one (a slab of Node's shared pool) would
 * keep all of it alive while counted as the view. The service's results (`encodeResult`) already
 * are, and are kept as they are.
 */
function ownBytes(value: Buffer): Buffer {
  if (value.byteLength === value.buffer.byteLength) return value;
  const own = Buffer.allocUnsafeSlow(value.byteLength);
  value.copy(own);
  return own;
}
