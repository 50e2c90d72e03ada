import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { serviceActor } from '../store/change-recorder.js';
import type { Db } from '../store/database.js';
import type { AccountService } from './account-service.js';
import type { UserService } from './users.js';

export const ADMIN_TOKEN_FILE = 'admin-token';
/** Serialises the first-start bootstrap between instances starting together on one database. */
const BOOTSTRAP_LOCK_ID = 7_340_001;

export interface AdminTokenSource {
  token: string;
  /** Set when the token was generated now and written to this file. */
  generatedFile?: string;
}

/** The token a server generated into `DATA_DIR/admin-token`, if there is one. */
export function readStoredAdminToken(dataDir: string): string | undefined {
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined;
}

/** `ADMIN_TOKEN` if set; else the token kept in `DATA_DIR/admin-token`, generated (mode 0600) if absent. */
export function resolveAdminToken(configured: string | undefined, dataDir: string): AdminTokenSource {
  if (configured) return { token: configured };
  const stored = readStoredAdminToken(dataDir);
  if (stored) return { token: stored };
  const file = path.join(dataDir, ADMIN_TOKEN_FILE);
  fs.mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(32).toString('base64url');
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, generatedFile: file };
}

/** The dashboard user created with the `default` account; the operator adds others (and removes this one). */
export const DEFAULT_OWNER_EMAIL = 'owner@localhost';

export interface DefaultAccount {
  accountId: string;
  key: string;
  /** The owner's dashboard credentials; the password is generated and exists only here. */
  owner: { email: string; password: string };
}

/**
 * On a database without accounts, creates the `default` account (Professional), its first key
 * and its owner's dashboard user, so that a fresh `npm start` can be used at once. Returns the
 * key and the owner's password to print once.
 */
export async function bootstrapDefaultAccount(
  db: Db,
  accounts: AccountService,
  users: UserService,
): Promise<DefaultAccount | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_ID})`.execute(trx);
    const existing = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (existing) return undefined;
    const { account, key } = await accounts.createAccount(
      serviceActor('bootstrap'),
      'default',
      'professional',
      undefined,
      trx,
    );
    const owner = await users.create(
      serviceActor('bootstrap'),
      account.id,
      DEFAULT_OWNER_EMAIL,
      undefined,
      trx,
    );
    return { accountId: account.id, key: key.key, owner: { email: owner.email, password: owner.password! } };
  });
}
