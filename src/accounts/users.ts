import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { notFound, ServiceError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ChangeActor, ChangeRecorder } from '../store/change-recorder.js';
import type { Db } from '../store/database.js';
import type { UserRow } from '../store/schema.js';
import { getAccount } from './accounts.js';
import { generatePassword, hashPassword, passwordProblem } from './passwords.js';

/** Longest email address accepted (RFC 5321's path limit). */
export const EMAIL_MAX_LENGTH_CHARS = 254;

/** What anyone may see of a dashboard user: never the password hash. */
export interface DashboardUser {
  id: string;
  account_id: string;
  email: string;
  created_at: string;
}

export interface CreatedDashboardUser extends DashboardUser {
  /** The generated password, when none was given: returned once and never stored in clear. */
  password?: string;
}

/** Emails compare case-insensitively: stored and looked up trimmed, NFC and in lower case. */
export function normaliseEmail(raw: string): string {
  return raw.trim().normalize('NFC').toLowerCase();
}

/** A deliberately loose check (local@domain, no spaces): the address is a sign-in name, never mailed. */
export function emailProblem(email: string): string | undefined {
  if (email.length === 0) return 'is required';
  if (email.length > EMAIL_MAX_LENGTH_CHARS)
    return `must be at most ${EMAIL_MAX_LENGTH_CHARS} characters long`;
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) return 'must be an email address (name@domain)';
  return undefined;
}

export function toDashboardUser(row: UserRow): DashboardUser {
  return {
    id: row.id,
    account_id: row.account_id,
    email: row.email,
    created_at: new Date(row.created_at).toISOString(),
  };
}

export interface UserServiceDeps {
  db: Db;
  clock: Clock;
  /** Chains a change in the audit log, in the change's transaction (runtime.ts passes `recordChanges`). */
  record: ChangeRecorder;
}

/**
 * Dashboard users, created and removed by operators (and the first-start bootstrap). Each change is
 * chained in the account's audit log in its own transaction, with who made it (`actor`).
 */
export class UserService {
  constructor(private readonly deps: UserServiceDeps) {}

  /**
   * Creates a user of the account. Without a password one is generated and returned once.
   * `within` joins an open transaction (the bootstrap's).
   */
  async create(
    actor: ChangeActor,
    accountId: string,
    rawEmail: string,
    password?: string,
    within?: Db,
  ): Promise<CreatedDashboardUser> {
    const email = normaliseEmail(rawEmail);
    const errors = [
      { pointer: '/email', detail: emailProblem(email) },
      { pointer: '/password', detail: password === undefined ? undefined : passwordProblem(password) },
    ].filter((e): e is { pointer: string; detail: string } => e.detail !== undefined);
    if (errors.length > 0) throw new ServiceError('validation-failed', 'The user cannot be created.', errors);
    if (!isUuid(accountId)) throw notFound('The account');
    await getAccount(within ?? this.deps.db, accountId);
    const generated = password === undefined ? generatePassword() : undefined;
    const passwordHash = await hashPassword(password ?? generated!);
    const insert = async (db: Db) => {
      const inserted = await db
        .insertInto('users')
        .values({
          id: randomUUID(),
          account_id: accountId,
          email,
          password_hash: passwordHash,
          created_at: this.deps.clock.now(),
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted) {
        const by = { ...actor, account_id: accountId };
        await this.deps.record(db, by, this.deps.clock.now(), 'user.created', [inserted.id]);
      }
      return inserted;
    };
    const row = within ? await insert(within) : await this.deps.db.transaction().execute(insert);
    if (!row) throw new ServiceError('conflict', `A user with the email ${email} already exists.`);
    const user = toDashboardUser(row);
    return generated === undefined ? user : { ...user, password: generated };
  }

  async list(accountId: string): Promise<DashboardUser[]> {
    if (!isUuid(accountId)) throw notFound('The account');
    await getAccount(this.deps.db, accountId);
    const rows = await this.deps.db
      .selectFrom('users')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toDashboardUser);
  }

  /** Removes a user; their sessions go with them (the foreign key cascades), so they are signed out at once. */
  async delete(actor: ChangeActor, userId: string): Promise<void> {
    if (!isUuid(userId)) throw notFound('The user');
    await this.deps.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('users')
        .where('id', '=', userId)
        .returning('account_id')
        .executeTakeFirst();
      if (!deleted) throw notFound('The user');
      // Chained after the deletion: the row's hash is null, as verify finds it.
      const by = { ...actor, account_id: deleted.account_id };
      await this.deps.record(trx, by, this.deps.clock.now(), 'user.deleted', [userId]);
    });
  }
}
