import type { Clock } from '../clock.js';
import { notFound, ServiceError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { ChangeActor, ChangeRecorder } from '../store/change-recorder.js';
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
  /** Chains a change in the audit log, in the change's transaction (runtime.ts passes `recordChanges`). */
  record: ChangeRecorder;
}

/**
 * Accounts and their keys, for customers (always scoped to their own account) and operators.
 * Every change that affects authentication is broadcast, so no instance keeps serving it. Every
 * change is chained in the account's audit log in its own transaction, with who made it (`actor`:
 * the API key, the dashboard user, or the operator), so a change answered is never missing from it.
 */
export class AccountService {
  constructor(private readonly deps: AccountServiceDeps) {}

  /** Creates an account with its first key, in one transaction (`within` joins an open one). */
  async createAccount(
    actor: ChangeActor,
    name: string,
    plan: PlanId,
    keyName = DEFAULT_KEY_NAME,
    within?: Db,
  ) {
    const create = async (trx: Db) => {
      const account = await insertAccount(trx, this.deps.clock, name, plan);
      const key = await createApiKey(trx, this.deps.clock, account.id, keyName);
      const by = { ...actor, account_id: account.id };
      const at = this.deps.clock.now();
      await this.deps.record(trx, by, at, 'account.created', [account.id]);
      await this.deps.record(trx, by, at, 'api_key.created', [key.id]);
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

  async updateAccount(actor: ChangeActor, id: string, changes: AccountChanges): Promise<Account> {
    if (!isUuid(id)) throw notFound('The account');
    // A suspension ends the dashboard sessions in the same transaction: none outlives it.
    const account = await this.deps.db.transaction().execute(async (trx) => {
      const updated = await updateAccount(trx, id, changes);
      if (changes.status === 'suspended') await endAccountSessions(trx, id);
      await this.deps.record(trx, { ...actor, account_id: id }, this.deps.clock.now(), 'account.changed', [
        id,
      ]);
      return updated;
    });
    await this.deps.keys.invalidateAccount(id);
    return account;
  }

  /** Refused with `limit-reached` once the account holds its plan's number of active keys. */
  async createKey(actor: ChangeActor, accountId: string, name: string): Promise<CreatedApiKey> {
    const { plan } = await this.getAccount(accountId);
    const max = PLANS[plan].activeKeysMax;
    const key = await createApiKeyUnderCap(
      this.deps.db,
      this.deps.clock,
      accountId,
      name,
      max,
      (trx, created) =>
        this.deps.record(trx, { ...actor, account_id: accountId }, this.deps.clock.now(), 'api_key.created', [
          created.id,
        ]),
    );
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
  async revokeKey(actor: ChangeActor, keyId: string, accountId?: string): Promise<ApiKeyView> {
    if (!isUuid(keyId)) throw notFound('The API key');
    const key = await this.deps.db.transaction().execute(async (trx) => {
      const revoked = await revokeApiKey(trx, this.deps.clock, keyId, accountId);
      // Revoking a revoked key changes nothing: nothing to chain.
      if (revoked.changed) {
        await this.deps.record(
          trx,
          { ...actor, account_id: revoked.key.account_id },
          this.deps.clock.now(),
          'api_key.revoked',
          [keyId],
        );
      }
      return revoked.key;
    });
    await this.deps.keys.invalidateKey(keyId);
    return key;
  }
}
