import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { recordChanges } from '../../src/audit/audited-change.js';
import { SESSION_COOKIE } from '../../src/dashboard/session-guard.js';
import { monitorActor } from '../../src/screening/monitoring/monitor-audit.js';
import type { Db } from '../../src/store/database.js';
import { DashboardClient } from './dashboard-client.js';
import type { TestApp } from './test-app.js';

export const PASSWORD = 'correct horse battery staple';
const POLL_MS = 25;
const SETTLED_WITHIN_MS = 15_000;

/** A dashboard session as a browser holds it: the cookie's token and the session's CSRF token. */
export interface Session {
  token: string;
  csrf: string;
}

/**
 * One customer account with an object of every kind the API and the dashboard name by id. Every
 * object carries the tenant's `marker` (a key's name, a webhook's URL, a screened name, a batch
 * item's reference, the user's email), so an answer that shows another tenant's object is found
 * by looking for that marker in it.
 */
export interface Tenant {
  accountId: string;
  marker: string;
  /** The key that makes the tenant's requests. */
  key: string;
  keyId: string;
  /** The key that key routes aim at: a refusal that failed would revoke this one, not `key`. */
  targetKeyId: string;
  screeningId: string;
  /** A screening with a flag (of the fixture list), the flag's id, and a decision taken on it. */
  flaggedScreeningId: string;
  flagId: string;
  decisionId: string;
  /** A monitor, and an alert on it (written as a list change would: the cast has none to make). */
  monitorId: string;
  importId: string;
  alertId: string;
  batchId: string;
  webhookId: string;
  userId: string;
  email: string;
  session: Session;
}

/** Lower-case letters only: screened names are case-folded, and the marker must survive that. */
function newMarker(): string {
  const letters = [...randomBytes(12)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
  return `marker${letters}`;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > SETTLED_WITHIN_MS) throw new Error(`${what} did not happen in time`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Signs a user in as a browser would; returns the session the cookie holds. */
export async function signIn(api: TestApp, email: string): Promise<Session> {
  const browser = new DashboardClient(api.baseUrl);
  expect((await browser.signIn(email, PASSWORD)).status).toBe(303);
  // The keys page has forms, so reading it gives the session's CSRF token.
  expect((await browser.get('/dashboard/keys')).status).toBe(200);
  return { token: browser.cookies.get(SESSION_COOKIE)!.value, csrf: browser.csrf };
}

async function created(api: TestApp, key: string, url: string, body: unknown, status: number) {
  const response = await api.request('POST', url, { key, body });
  expect(response.status, `${url}: ${JSON.stringify(response.body)}`).toBe(status);
  return response.body as { id: string };
}

/** Waits until the tenant's batch is closed and its webhook has no delivery left to make. */
async function settled(api: TestApp, tenant: Tenant): Promise<void> {
  await api.runtime.firstScreenings.settle();
  await until('the batch', async () => {
    const batch = await api.request('GET', `/v1/screen/batch/${tenant.batchId}`, { key: tenant.key });
    return batch.body.status === 'completed' ? true : undefined;
  });
  const db = api.runtime.ctx.db;
  await until('the webhook deliveries', async () => {
    const deliveries = await db
      .selectFrom('webhook_deliveries')
      .select('status')
      .where('webhook_id', '=', tenant.webhookId)
      .execute();
    const done = deliveries.length >= 2 && deliveries.every((d) => d.status !== 'pending');
    return done ? true : undefined;
  });
}

/**
 * Creates an Enterprise account with a key, a target key, a webhook (to `receiverUrl`), a stored
 * screening, a completed batch, delivered webhook events and a signed-in dashboard user.
 */
export async function createTenant(api: TestApp, receiverUrl: string): Promise<Tenant> {
  const marker = newMarker();
  const { account, key, keyId } = await api.createAccount('enterprise');
  const accountId = account.id;
  const patched = await api.admin('PATCH', `/admin/v1/accounts/${accountId}`, {
    rate_limit_per_minute: 1_000_000,
  });
  expect(patched.status).toBe(200);
  const email = `${marker}@example.com`;
  const user = await api.admin('POST', `/admin/v1/accounts/${accountId}/users`, {
    email,
    password: PASSWORD,
  });
  expect(user.status).toBe(201);
  const target = await created(api, key, '/v1/keys', { name: marker }, 201);
  const webhook = await created(api, key, '/v1/webhooks', { url: `${receiverUrl}/${marker}` }, 201);
  const screening = await api.request('POST', '/v1/screen', { key, body: { query: `${marker} person` } });
  expect(screening.status).toBe(200);
  // The decision routes aim at a screening's flag, and deciding on it supersedes the subject's
  // standing decision: the decision the routes aim at is on another subject, and stays standing.
  const { flaggedScreeningId, flagId } = await decidedFlag(api, key, marker);
  const { decisionId } = await decidedFlag(api, key, `${marker}-standing`);
  const monitor = await created(
    api,
    key,
    '/v1/monitors',
    { query: `${marker} monitored`, reference: marker },
    201,
  );
  const imported = await created(
    api,
    key,
    '/v1/monitors/import',
    { items: [{ query: `${marker} imported`, reference: marker }] },
    202,
  );
  const alertId = await alertOn(api, accountId, monitor as { id: string; screening: { id: string } }, marker);
  const items = [{ query: `${marker} company`, reference: marker }];
  const batch = await created(api, key, '/v1/screen/batch', { items }, 202);
  const tenant: Tenant = {
    accountId,
    marker,
    key,
    keyId,
    targetKeyId: target.id,
    screeningId: screening.body.id,
    flaggedScreeningId,
    flagId,
    decisionId,
    monitorId: monitor.id,
    importId: imported.id,
    alertId,
    batchId: batch.id,
    webhookId: webhook.id,
    userId: user.body.id,
    email,
    session: await signIn(api, email),
  };
  await settled(api, tenant);
  return tenant;
}

/**
 * An open alert on the monitor, as a monitor run would store it (on the monitor's first screening),
 * chained in the audit log in the same transaction, as the run chains it.
 */
async function alertOn(
  api: TestApp,
  accountId: string,
  monitor: { id: string; screening: { id: string } },
  marker: string,
): Promise<string> {
  const id = randomUUID();
  const changeId = randomUUID();
  await api.runtime.ctx.db.transaction().execute(async (trx) => {
    await insertAlert(trx, id, accountId, monitor, marker, changeId);
    const actor = monitorActor(
      { id: monitor.id, accountId, keyId: null },
      'alerts',
      `${changeId}:${monitor.id}`,
    );
    await recordChanges(trx, actor, new Date(), 'alert.raised', [id]);
  });
  return id;
}

async function insertAlert(
  db: Db,
  id: string,
  accountId: string,
  monitor: { id: string; screening: { id: string } },
  marker: string,
  changeId: string,
): Promise<void> {
  await db
    .insertInto('alerts')
    .values({
      id,
      account_id: accountId,
      monitor_id: monitor.id,
      reference: marker,
      screening_id: monitor.screening.id,
      flag_id: `${marker}:1`,
      record_hash: marker,
      reason: 'new_match',
      list: 'un_sc',
      list_version: marker,
      list_change_id: changeId,
      flags: '[]',
      status: 'open',
      created_at: new Date(),
    })
    .execute();
}

/** A listed name of the fixture list: its screening has a flag to decide on. */
const FLAGGED_NAME = 'BNK UK Limited';

/**
 * A screening of a listed name for the subject `reference`, and a decision on its first flag. Each
 * reference is its own subject, so a new one never supersedes the decision of another.
 */
async function decidedFlag(api: TestApp, key: string, reference: string) {
  const screening = await api.request('POST', '/v1/screen', {
    key,
    body: { query: FLAGGED_NAME, reference },
  });
  expect(screening.status).toBe(200);
  const flagId = screening.body.flags[0]?.id as string;
  expect(flagId, `${FLAGGED_NAME} is flagged`).toBeDefined();
  const path = `/v1/screen/${screening.body.id}/flags/${encodeURIComponent(flagId)}/decision`;
  const decision = await created(api, key, path, { decision: 'false_positive', note: reference }, 201);
  return { flaggedScreeningId: screening.body.id as string, flagId, decisionId: decision.id };
}

/** A key of the tenant that is revoked (through the API) before it is used. */
export async function revokedKey(api: TestApp, tenant: Tenant): Promise<{ key: string; id: string }> {
  const response = await api.request('POST', '/v1/keys', { key: tenant.key, body: { name: 'revoked' } });
  expect(response.status).toBe(201);
  const revoked = await api.request('DELETE', `/v1/keys/${response.body.id}`, { key: tenant.key });
  expect(revoked.status).toBe(204);
  return { key: response.body.key, id: response.body.id };
}

/** A session of the tenant's user that was signed out. */
export async function signedOutSession(api: TestApp, tenant: Tenant): Promise<Session> {
  const session = await signIn(api, tenant.email);
  const out = await fetch(`${api.baseUrl}/dashboard/sign-out`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `${SESSION_COOKIE}=${session.token}`, 'x-csrf-token': session.csrf },
  });
  expect(out.status).toBe(303);
  return session;
}

export async function suspend(api: TestApp, tenant: Tenant): Promise<void> {
  const response = await api.admin('PATCH', `/admin/v1/accounts/${tenant.accountId}`, {
    status: 'suspended',
  });
  expect(response.status).toBe(200);
}

/**
 * What the accounts own, as rows: a refused request must leave it exactly as it was (counts alone
 * would miss an edit, such as a revocation, a cancellation or a plan change).
 */
export async function ownedState(api: TestApp, accountIds: string[]): Promise<string> {
  const db = api.runtime.ctx.db;
  const state = await Promise.all([
    db.selectFrom('accounts').selectAll().where('id', 'in', accountIds).orderBy('id').execute(),
    db
      .selectFrom('api_keys')
      .select(['id', 'name', 'revoked_at'])
      .where('account_id', 'in', accountIds)
      .orderBy('id')
      .execute(),
    db.selectFrom('webhooks').selectAll().where('account_id', 'in', accountIds).orderBy('id').execute(),
    db.selectFrom('batches').selectAll().where('account_id', 'in', accountIds).orderBy('id').execute(),
    db.selectFrom('screenings').select('id').where('account_id', 'in', accountIds).orderBy('id').execute(),
    db.selectFrom('decisions').selectAll().where('account_id', 'in', accountIds).orderBy('id').execute(),
    db.selectFrom('monitors').selectAll().where('account_id', 'in', accountIds).orderBy('id').execute(),
    db.selectFrom('alerts').selectAll().where('account_id', 'in', accountIds).orderBy('id').execute(),
    db.selectFrom('usage_counters').selectAll().where('account_id', 'in', accountIds).execute(),
    db
      .selectFrom('users')
      .leftJoin('dashboard_sessions', 'dashboard_sessions.user_id', 'users.id')
      .select(['users.id', 'users.email', 'dashboard_sessions.id as session_id'])
      .where('users.account_id', 'in', accountIds)
      .orderBy('users.id')
      .orderBy('dashboard_sessions.id')
      .execute(),
  ]);
  return JSON.stringify(state);
}

/** Objects a route may destroy; the accepted request of such a route is aimed at a fresh one. */
export type Disposable = 'key' | 'webhook' | 'batch' | 'user' | 'session' | 'decision' | 'monitor';

/** A new object of the tenant for a destructive request to consume: its id (or session). */
export async function freshObject(
  api: TestApp,
  tenant: Tenant,
  kind: Disposable,
  receiverUrl: string,
): Promise<string | Session> {
  const key = tenant.key;
  switch (kind) {
    case 'key':
      return (await created(api, key, '/v1/keys', { name: 'disposable' }, 201)).id;
    case 'webhook':
      return (await created(api, key, '/v1/webhooks', { url: `${receiverUrl}/disposable` }, 201)).id;
    case 'batch':
      return (await created(api, key, '/v1/screen/batch', { items: [{ query: 'Disposable Name' }] }, 202)).id;
    case 'user': {
      const email = `disposable-${randomBytes(6).toString('hex')}@example.com`;
      const user = await api.admin('POST', `/admin/v1/accounts/${tenant.accountId}/users`, { email });
      expect(user.status).toBe(201);
      return user.body.id as string;
    }
    case 'session':
      return signIn(api, tenant.email);
    case 'decision':
      return (await decidedFlag(api, key, `disposable-${randomBytes(6).toString('hex')}`)).decisionId;
    case 'monitor':
      return (await created(api, key, '/v1/monitors', { query: 'Disposable Name' }, 201)).id;
  }
}
