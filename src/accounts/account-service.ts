import type { Clock } from '../clock.js';
import { notFound, ServiceError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Db } from '../store/database.js';
import {
  type Account,
  type AccountChanges,
  getAccount,
  insertAccount,
  listAccounts,
  updateAccount,
} from './accounts.js';
import {
  type ApiKeyPage,
  type ApiKeyView,
  type CreatedApiKey,
  createApiKey,
  createApiKeyUnderCap,
  DEFAULT_KEY_NAME,
  listApiKeyPage,
  listApiKeys,
  revokeApiKey,
} from './api-keys.js';
import { endAccountSessions } from './dashboard-sessions.js';
import type { KeyAuthenticator } from './key-authenticator.js';
import { PLANS, type PlanId } from './plans.js';

export interface AccountServiceDeps {
  db: Db;
  clock: Clock;
  keys: KeyAuthenticator;
}

/**
 * Accounts and their keys, for customers (always scoped to their own account) and operators.
 * Every change that affects authentication is broadcast, so no instance keeps serving it.
 */
export class AccountService {
  constructor(private readonly deps: AccountServiceDeps) {}

  /** Creates an account with its first key, in one transaction (`within` joins an open one). */
  async createAccount(name: string, plan: PlanId, keyName = DEFAULT_KEY_NAME, within?: Db) {
    const create = async (trx: Db) => {
      const account = await insertAccount(trx, this.deps.clock, name, plan);
      const key = await createApiKey(trx, this.deps.clock, account.id, keyName);
      return { account, key };
    };
    return within ? create(within) : this.deps.db.transaction().execute(create);
  }

  listAccounts(): Promise<Account[]> {
    return listAccounts(this.deps.db);
  }

  getAccount(id: string): Promise<Account> {
    if (!isUuid(id)) throw notFound('The account');
    return getAccount(this.deps.db, id);
  }

  async updateAccount(id: string, changes: AccountChanges): Promise<Account> {
    if (!isUuid(id)) throw notFound('The account');
    // A suspension ends the dashboard sessions in the same transaction: none outlives it.
    const account = await this.deps.db.transaction().execute(async (trx) => {
      const updated = await updateAccount(trx, id, changes);
      if (changes.status === 'suspended') await endAccountSessions(trx, id);
      return updated;
    });
    await this.deps.keys.invalidateAccount(id);
    return account;
  }

  /** Refused with `limit-reached` once the account holds its plan's number of active keys. */
  async createKey(accountId: string, name: string): Promise<CreatedApiKey> {
    const { plan } = await this.getAccount(accountId);
    const max = PLANS[plan].activeKeysMax;
    const key = await createApiKeyUnderCap(this.deps.db, this.deps.clock, accountId, name, max);
    if (!key) {
      throw new ServiceError(
        'limit-reached',
        `An account may have at most ${max} active API keys; revoke one before creating another.`,
      );
    }
    return key;
  }

  async listKeys(accountId: string): Promise<ApiKeyView[]> {
    await this.getAccount(accountId);
    return listApiKeys(this.deps.db, accountId);
  }

  async listKeyPage(
    accountId: string,
    page: { cursor?: string | undefined; limit?: number | undefined },
  ): Promise<ApiKeyPage> {
    await this.getAccount(accountId);
    return listApiKeyPage(this.deps.db, accountId, page);
  }

  /** `accountId` scopes a customer's request; operators may revoke any key. */
  async revokeKey(keyId: string, accountId?: string): Promise<ApiKeyView> {
    if (!isUuid(keyId)) throw notFound('The API key');
    const key = await revokeApiKey(this.deps.db, this.deps.clock, keyId, accountId);
    await this.deps.keys.invalidateKey(keyId);
    return key;
  }
}
