import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { Broadcast } from '../store/broadcast.js';
import type { Db } from '../store/database.js';
import type { AccountStatus } from './accounts.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';
import type { PlanId } from './plans.js';

/** While invalidations reach this instance (Redis pub/sub up), a looked-up key is reused this long. */
export const KEY_CACHE_TTL_MS = 60_000;
/** Without a working invalidation channel, a cached key is trusted at most this long (the revocation bound). */
export const KEY_CACHE_UNCONFIRMED_TTL_MS = 1_000;
const KEY_CACHE_MAX_ENTRIES = 50_000;
/**
 * A well-formed but unknown key is remembered this long, so a flood of random keys costs no
 * database lookups. Safe: a key created later has a hash nobody can have presented before.
 */
export const UNKNOWN_KEY_CACHE_TTL_MS = 5_000;

export const KEY_INVALIDATION_CHANNEL = 'api-key-invalidation';

export interface AuthenticatedKey {
  keyId: string;
  accountId: string;
  prefix: string;
  last4: string;
  plan: PlanId;
  accountStatus: AccountStatus;
  rateLimitPerMinute: number | null;
  revoked: boolean;
  lastUsedAt: Date | null;
}

export type Authentication =
  | { outcome: 'malformed' }
  | { outcome: 'unknown' }
  | { outcome: 'revoked' | 'suspended' | 'ok'; key: AuthenticatedKey };

interface CacheEntry {
  key: AuthenticatedKey;
  cachedAt: number;
  epoch: number | undefined;
}

/**
 * Resolves a presented API key to its account, by hash only. Results are cached per instance;
 * revocations, suspensions and plan changes are broadcast so that every instance drops them at
 * once, and an entry that may have missed such a message lives no longer than one second.
 */
export class KeyAuthenticator {
  private readonly cache = new LRUCache<string, CacheEntry>({ max: KEY_CACHE_MAX_ENTRIES });
  private readonly unknown = new LRUCache<string, true>({
    max: KEY_CACHE_MAX_ENTRIES,
    ttl: UNKNOWN_KEY_CACHE_TTL_MS,
  });
  /** Counts invalidations: a lookup that raced with one must not be trusted beyond one second. */
  private invalidations = 0;

  constructor(
    private readonly db: Db,
    private readonly broadcast: Broadcast,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    await this.broadcast.subscribe(KEY_INVALIDATION_CHANNEL, (message) => this.drop(message));
  }

  async authenticate(presented: string): Promise<Authentication> {
    if (!isWellFormedApiKey(presented)) return { outcome: 'malformed' };
    const hash = hashApiKey(presented);
    if (this.unknown.has(hash)) return { outcome: 'unknown' };
    const key = this.fromCache(hash) ?? (await this.load(hash));
    if (!key) {
      this.unknown.set(hash, true);
      return { outcome: 'unknown' };
    }
    if (key.revoked) return { outcome: 'revoked', key };
    if (key.accountStatus !== 'active') return { outcome: 'suspended', key };
    return { outcome: 'ok', key };
  }

  /** Tells every instance (this one first) to forget a key or all keys of an account. */
  async invalidateKey(keyId: string): Promise<void> {
    await this.broadcast.publish(KEY_INVALIDATION_CHANNEL, `key:${keyId}`);
  }

  async invalidateAccount(accountId: string): Promise<void> {
    await this.broadcast.publish(KEY_INVALIDATION_CHANNEL, `account:${accountId}`);
  }

  private drop(message: string): void {
    this.invalidations += 1;
    const [kind, id] = message.split(':', 2);
    for (const [hash, entry] of this.cache.entries()) {
      if ((kind === 'key' && entry.key.keyId === id) || (kind === 'account' && entry.key.accountId === id)) {
        this.cache.delete(hash);
      }
    }
  }

  private fromCache(hash: string): AuthenticatedKey | undefined {
    const entry = this.cache.get(hash);
    if (!entry) return undefined;
    const epoch = this.broadcast.epoch();
    const confirmed = epoch !== undefined && epoch === entry.epoch;
    const ttl = confirmed ? KEY_CACHE_TTL_MS : KEY_CACHE_UNCONFIRMED_TTL_MS;
    if (this.clock.now().getTime() - entry.cachedAt >= ttl) {
      this.cache.delete(hash);
      return undefined;
    }
    return entry.key;
  }

  private async load(hash: string): Promise<AuthenticatedKey | undefined> {
    // Read the epoch and the invalidation count before the row: an invalidation racing with this
    // read (its message may arrive before the read's stale answer) then ends the entry after 1 s.
    const epoch = this.broadcast.epoch();
    const invalidations = this.invalidations;
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id as keyId',
        'api_keys.account_id as accountId',
        'api_keys.prefix',
        'api_keys.last4',
        'api_keys.revoked_at',
        'api_keys.last_used_at',
        'accounts.plan',
        'accounts.status',
        'accounts.rate_limit_per_minute',
      ])
      .where('api_keys.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    const key: AuthenticatedKey = {
      keyId: row.keyId,
      accountId: row.accountId,
      prefix: row.prefix,
      last4: row.last4,
      plan: row.plan as PlanId,
      accountStatus: row.status as AccountStatus,
      rateLimitPerMinute: row.rate_limit_per_minute,
      revoked: row.revoked_at !== null,
      lastUsedAt: row.last_used_at === null ? null : new Date(row.last_used_at),
    };
    const raced = invalidations !== this.invalidations;
    this.cache.set(hash, { key, cachedAt: this.clock.now().getTime(), epoch: raced ? undefined : epoch });
    return key;
  }
}
