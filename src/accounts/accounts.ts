import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { Clock } from '../clock.js';
import { notFound } from '../errors.js';
import type { Db } from '../store/database.js';
import type { AccountRow, AccountTable } from '../store/schema.js';
import type { PlanId } from './plans.js';

export type AccountStatus = 'active' | 'suspended';

export interface Account {
  id: string;
  name: string;
  plan: PlanId;
  status: AccountStatus;
  rate_limit_per_minute: number | null;
  created_at: string;
}

export interface AccountChanges {
  plan?: PlanId | undefined;
  status?: AccountStatus | undefined;
  rate_limit_per_minute?: number | null | undefined;
}

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as PlanId,
    status: row.status as AccountStatus,
    rate_limit_per_minute: row.rate_limit_per_minute,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export async function insertAccount(db: Db, clock: Clock, name: string, plan: PlanId): Promise<Account> {
  const row = await db
    .insertInto('accounts')
    .values({
      id: randomUUID(),
      name,
      plan,
      status: 'active',
      rate_limit_per_minute: null,
      created_at: clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toAccount(row);
}

export async function listAccounts(db: Db): Promise<Account[]> {
  const rows = await db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
  return rows.map(toAccount);
}

export async function getAccount(db: Db, id: string): Promise<Account> {
  const row = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('The account');
  return toAccount(row);
}

export async function updateAccount(db: Db, id: string, changes: AccountChanges): Promise<Account> {
  const values: Updateable<AccountTable> = {};
  if (changes.plan !== undefined) values.plan = changes.plan;
  if (changes.status !== undefined) values.status = changes.status;
  if (changes.rate_limit_per_minute !== undefined)
    values.rate_limit_per_minute = changes.rate_limit_per_minute;
  if (Object.keys(values).length === 0) return getAccount(db, id);
  const row = await db
    .updateTable('accounts')
    .set(values)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('The account');
  return toAccount(row);
}
