import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import type { Db } from '../store/database.js';
import { decodePageCursor, encodePageCursor } from '../store/page-cursor.js';
import type { ApiKeyRow } from '../store/schema.js';
import { API_KEY_PREFIX, generateApiKey, hashApiKey, lastFour } from './api-key-format.js';

/** What anyone may see of a key: never the key itself nor its hash. */
export interface ApiKeyView {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  last4: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  status: 'active' | 'revoked';
}

export interface CreatedApiKey extends ApiKeyView {
  /** The plaintext key: returned once, at creation, and never stored. */
  key: string;
}

export const DEFAULT_KEY_NAME = 'default';

function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

export function toApiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    prefix: row.prefix,
    last4: row.last4,
    created_at: new Date(row.created_at).toISOString(),
    last_used_at: iso(row.last_used_at),
    revoked_at: iso(row.revoked_at),
    status: row.revoked_at === null ? 'active' : 'revoked',
  };
}

export async function createApiKey(
  db: Db,
  clock: Clock,
  accountId: string,
  name: string,
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const row = await db
    .insertInto('api_keys')
    .values({
      id: randomUUID(),
      account_id: accountId,
      name,
      key_hash: hashApiKey(key),
      prefix: API_KEY_PREFIX,
      last4: lastFour(key),
      created_at: clock.now(),
      last_used_at: null,
      revoked_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...toApiKeyView(row), key };
}

/**
 * Creates a key unless the account already holds `maxActive` keys not revoked; undefined then. The
 * account's row is locked for the count and the insert, so concurrent creations for one account
 * take turns and a burst cannot pass the cap (instances included: the lock is the database's).
 */
export async function createApiKeyUnderCap(
  db: Db,
  clock: Clock,
  accountId: string,
  name: string,
  maxActive: number,
  /** Runs in the creation's transaction, after it (the audit row). */
  then: (trx: Db, key: CreatedApiKey) => Promise<void>,
): Promise<CreatedApiKey | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT id FROM accounts WHERE id = ${accountId} FOR NO KEY UPDATE`.execute(trx);
    const { count } = await trx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(count) >= maxActive) return undefined;
    const key = await createApiKey(trx, clock, accountId, name);
    await then(trx, key);
    return key;
  });
}

/** Keys per page of `GET /v1/keys`, and the most a caller may ask. */
export const KEYS_PAGE_DEFAULT = 50;
export const KEYS_PAGE_MAX = 100;

export interface ApiKeyPage {
  data: ApiKeyView[];
  /** Pass as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
}

/** The account's keys, oldest first, a page at a time (keyset paging on creation time and id). */
export async function listApiKeyPage(
  db: Db,
  accountId: string,
  page: { cursor?: string | undefined; limit?: number | undefined },
): Promise<ApiKeyPage> {
  const limit = Math.min(Math.max(1, page.limit ?? KEYS_PAGE_DEFAULT), KEYS_PAGE_MAX);
  let query = db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId);
  if (page.cursor) {
    const [time, id] = decodePageCursor(page.cursor, '/cursor');
    query = query.where((eb) =>
      eb.or([eb('created_at', '>', time), eb.and([eb('created_at', '=', time), eb('id', '>', id)])]),
    );
  }
  const rows = await query
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  const data = rows.slice(0, limit).map(toApiKeyView);
  const last = data.at(-1);
  return {
    data,
    next_cursor: rows.length > limit && last ? encodePageCursor(last.created_at, last.id) : null,
  };
}

export async function listApiKeys(db: Db, accountId: string): Promise<ApiKeyView[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toApiKeyView);
}

/**
 * Revokes a key. `accountId` scopes the lookup for customers (another account's key is "not
 * found"); operators pass `undefined`. Revoking a revoked key keeps its first revocation time
 * (`changed` false). The key's row is locked (FOR NO KEY UPDATE: screenings counting under it
 * are not held up), so of two concurrent revocations one changes it and chains it.
 */
export async function revokeApiKey(
  db: Db,
  clock: Clock,
  keyId: string,
  accountId?: string,
): Promise<{ key: ApiKeyView; changed: boolean }> {
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', keyId);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const existing = await query.forNoKeyUpdate().executeTakeFirst();
  if (!existing) throw notFound('The API key');
  if (existing.revoked_at !== null) return { key: toApiKeyView(existing), changed: false };
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: clock.now() })
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { key: toApiKeyView(row), changed: true };
}
