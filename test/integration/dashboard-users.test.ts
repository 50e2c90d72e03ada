import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OWNER_EMAIL } from '../../src/accounts/bootstrap.js';
import { verifyPassword } from '../../src/accounts/passwords.js';
import { runAdmin } from '../../src/cli/admin.js';
import { AdminClient } from '../../src/cli/admin-client.js';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { firstStartMessage } from '../../src/server.js';
import { backends } from '../support/backends.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

describe.each(backends())('dashboard users through the operator API and CLI ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend);
  });
  afterAll(async () => api?.close());

  const signInStatus = async (email: string, password: string) =>
    (await new DashboardClient(api.baseUrl).signIn(email, password)).status;

  it('creates a user with a generated password, returned once, that signs in', async () => {
    const { account } = await api.createAccount();
    const email = `Gen-${account.id.slice(0, 8)}@Example.com`;
    const created = await api.admin('POST', `/admin/v1/accounts/${account.id}/users`, { email });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ account_id: account.id, email: email.toLowerCase() });
    expect(created.body.password.length).toBeGreaterThanOrEqual(12);
    expect(await signInStatus(email, created.body.password)).toBe(303);
    const listed = await api.admin('GET', `/admin/v1/accounts/${account.id}/users`);
    expect(listed.body.data).toEqual([
      {
        id: created.body.id,
        account_id: account.id,
        email: email.toLowerCase(),
        created_at: created.body.created_at,
      },
    ]);
  });

  it('stores only a scrypt hash of the password', async () => {
    const { account } = await api.createAccount();
    const password = 'a long enough passphrase';
    const created = await api.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
      email: `hash-${account.id.slice(0, 8)}@example.com`,
      password,
    });
    expect(created.body.password).toBeUndefined();
    const row = await api.runtime.ctx.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(row.password_hash).not.toContain(password);
    expect(await verifyPassword(password, row.password_hash)).toBe(true);
  });

  it('refuses a password under 12 characters, a malformed email, a taken email in any case, an unknown account', async () => {
    const { account } = await api.createAccount();
    const users = `/admin/v1/accounts/${account.id}/users`;
    const short = await api.admin('POST', users, { email: 'short@example.com', password: 'elevenchars' });
    expect(short.status).toBe(422);
    expect(short.body.errors).toEqual([
      { pointer: '/password', detail: 'must be at least 12 characters long' },
    ]);
    const malformed = await api.admin('POST', users, { email: 'not an email' });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors[0].pointer).toBe('/email');
    const email = `taken-${account.id.slice(0, 8)}@example.com`;
    expect((await api.admin('POST', users, { email })).status).toBe(201);
    const other = await api.createAccount();
    const taken = await api.admin('POST', `/admin/v1/accounts/${other.account.id}/users`, {
      email: email.toUpperCase(),
    });
    expect(taken.status).toBe(409);
    const unknown = await api.admin('POST', '/admin/v1/accounts/00000000-0000-4000-8000-000000000000/users', {
      email: 'x@example.com',
    });
    expect(unknown.status).toBe(404);
  });

  it('deletes a user, which ends their sessions at once', async () => {
    const { account } = await api.createAccount();
    const email = `gone-${account.id.slice(0, 8)}@example.com`;
    const created = await api.admin('POST', `/admin/v1/accounts/${account.id}/users`, { email });
    const browser = new DashboardClient(api.baseUrl);
    await browser.signIn(email, created.body.password);
    expect((await browser.get('/dashboard/keys')).status).toBe(200);
    expect((await api.admin('DELETE', `/admin/v1/users/${created.body.id}`)).status).toBe(204);
    expect((await browser.get('/dashboard/keys')).status).toBe(303);
    expect((await api.admin('DELETE', `/admin/v1/users/${created.body.id}`)).status).toBe(404);
  });

  it('`screening admin users create --password-stdin` takes the password from standard input, never the command line', async () => {
    const { account } = await api.createAccount();
    const client = new AdminClient(api.baseUrl, { token: TEST_ADMIN_TOKEN, source: 'ADMIN_TOKEN' });
    const email = `cli-${account.id.slice(0, 8)}@example.com`;
    const password = 'typed into stdin, 32 chars long';
    const created = (await runAdmin(
      client,
      ['users', 'create', '--account', account.id, '--email', email, '--password-stdin'],
      async () => `${password}\n`,
    )) as { email: string; password?: string };
    expect(created.email).toBe(email);
    expect(created.password).toBeUndefined();
    expect(await signInStatus(email, password)).toBe(303);

    const generated = (await runAdmin(client, [
      'users',
      'create',
      '--account',
      account.id,
      '--email',
      `gen-${email}`,
    ])) as { password: string };
    expect(await signInStatus(`gen-${email}`, generated.password)).toBe(303);
    const listed = (await runAdmin(client, ['users', 'list', '--account', account.id])) as {
      data: unknown[];
    };
    expect(listed.data).toHaveLength(2);
  });
});

describe('first start on an empty database', () => {
  it('creates the default account’s owner and prints the credentials once, on the first start only', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'css-bootstrap-'));
    const config = loadConfig({
      DATA_DIR: dataDir,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LISTS_ENABLED: 'none',
      GDELT_ENABLED: 'false',
      GLEIF_ENABLED: 'false',
    });
    const start = () => createRuntime({ config, logger: pino({ level: 'silent' }), bootstrap: true });
    const first = await start();
    try {
      const owner = first.defaultAccount!.owner;
      expect(owner.email).toBe(DEFAULT_OWNER_EMAIL);
      const message = firstStartMessage(first, 8080)!;
      expect(message).toContain(`Sign in as ${DEFAULT_OWNER_EMAIL}`);
      expect(message).toContain(`  ${owner.password}\n`);
      expect(message).toContain('http://127.0.0.1:8080/dashboard');
      const signIn = await first.ctx.dashboardSessions.signIn(owner.email, owner.password, '127.0.0.1');
      expect(signIn.outcome).toBe('signed-in');
      // The account, its key and its owner are chained as the service's own changes.
      const changes = await first.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'path', 'key_id', 'user_id'])
        .where('chain_id', '=', first.defaultAccount!.accountId)
        .orderBy('seq')
        .execute();
      expect(changes).toEqual(
        ['account.created', 'api_key.created', 'user.created'].map((action) => ({
          action,
          path: 'bootstrap',
          key_id: null,
          user_id: null,
        })),
      );
    } finally {
      await first.close();
    }
    const second = await start();
    try {
      expect(second.defaultAccount).toBeUndefined();
      expect(firstStartMessage(second, 8080)).toBeUndefined();
    } finally {
      await second.close();
    }
  });
});
