import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import type { Db } from '../store/database.js';
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
 * found"); operators pass `undefined`. Revoking a revoked key keeps its first revocation time.
 */
export async function revokeApiKey(
  db: Db,
  clock: Clock,
  keyId: string,
  accountId?: string,
): Promise<ApiKeyView> {
  let query = db.selectFrom('api_keys').selectAll().where('id', '=', keyId);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const existing = await query.executeTakeFirst();
  if (!existing) throw notFound('The API key');
  if (existing.revoked_at !== null) return toApiKeyView(existing);
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: clock.now() })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return toApiKeyView(row ?? existing);
}
