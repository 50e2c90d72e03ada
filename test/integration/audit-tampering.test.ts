import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminClient } from '../../src/cli/admin-client.js';
import { runAudit } from '../../src/cli/audit.js';
import { backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { TEST_ADMIN_TOKEN, TestApp } from '../support/test-app.js';

const CHECKPOINT_KEY = randomBytes(32);

/**
 * Deletions an attacker with write access to the database can make, and how `audit verify` sees
 * them. A database of its own: the whole-log verifications of other suites must not meet these.
 */
describe.each(backends())('audit log tampering ($name)', (shared) => {
  let api: TestApp;
  let drop: () => Promise<void>;
  let file: string;
  beforeAll(async () => {
    const isolated = await isolatedBackend(shared);
    drop = isolated.drop;
    file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'css-checkpoints-')), 'checkpoints.jsonl');
    api = await TestApp.start(isolated.backend, {
      env: { AUDIT_CHECKPOINT_KEY: CHECKPOINT_KEY.toString('hex'), AUDIT_CHECKPOINT_FILE: file },
    });
  });
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  /** `screening audit verify` as the operator runs it, against this instance. */
  function cliVerify(...args: string[]) {
    return runAudit(['verify', ...args], {
      client: () => new AdminClient(api.baseUrl, { token: TEST_ADMIN_TOKEN, source: 'ADMIN_TOKEN' }),
      config: { auditCheckpointKey: CHECKPOINT_KEY },
    }) as Promise<{ code: number; output: any }>;
  }

  /**
   * An account that made `requests` requests, then a checkpoint of every head. Its chain starts with
   * the operator's creation of the account and of its first key: rows 1 and 2.
   */
  async function checkpointedAccount(requests: number) {
    const created = await api.createAccount();
    for (let i = 0; i < requests; i++)
      expect((await api.request('GET', '/v1/usage', { key: created.key })).status).toBe(200);
    await api.runtime.ctx.audit.flush();
    expect(await api.runtime.auditCheckpoints!.run()).toBeGreaterThan(0);
    return created;
  }

  async function chainRows(accountId: string) {
    return db()
      .selectFrom('audit_log')
      .selectAll()
      .where('chain_id', '=', accountId)
      .orderBy('seq')
      .execute();
  }

  const db = () => api.runtime.ctx.db;

  async function deleteChain(accountId: string): Promise<void> {
    await Promise.all([api.runtime.ctx.audit.flush(), api.runtime.ctx.lastUsed.flush()]);
    await db().deleteFrom('audit_log').where('chain_id', '=', accountId).execute();
    await db().deleteFrom('audit_chain_heads').where('chain_id', '=', accountId).execute();
  }

  it('reports an account that made requests but whose chain and head were deleted', async () => {
    const { key, account } = await api.createAccount();
    for (let i = 0; i < 3; i++) expect((await api.request('GET', '/v1/usage', { key })).status).toBe(200);
    const untouched = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(untouched.body).toMatchObject({ ok: true, chains_checked: 1, rows_checked: 5 });

    await deleteChain(account.id);
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body.ok).toBe(false);
    expect(result.body.chains_checked).toBe(0);
    expect(result.body.breaks).toEqual([
      expect.objectContaining({
        chain_id: account.id,
        row_id: null,
        reason: expect.stringMatching(/no audit chain.*API key used/),
      }),
    ]);
    // The whole-log verification names it too.
    const all = await api.admin('POST', '/admin/v1/audit/verify');
    expect(all.body.ok).toBe(false);
    expect(all.body.breaks.map((b: { chain_id: string }) => b.chain_id)).toContain(account.id);
  });

  it('passes an untouched chain held to its checkpoint', async () => {
    const { account } = await checkpointedAccount(3);
    const { code, output } = await cliVerify('--account', account.id, '--checkpoints', file);
    expect(output).toMatchObject({ ok: true, chains_checked: 1, rows_checked: 5, checkpoints_checked: 1 });
    expect(output.checkpoint_file).toMatchObject({ chains: 1, problems: [] });
    expect(code).toBe(0);
  });

  it('names the account whose last rows were deleted and whose head was moved back', async () => {
    const { key, account } = await checkpointedAccount(5);
    const rows = await chainRows(account.id);
    await db().deleteFrom('audit_log').where('chain_id', '=', account.id).where('seq', '>', '2').execute();
    await db()
      .updateTable('audit_chain_heads')
      .set({ seq: 2, hash: rows[1]!.hash })
      .where('chain_id', '=', account.id)
      .execute();
    // The database alone cannot tell: what is left is a consistent chain.
    const alone = await cliVerify('--account', account.id);
    expect(alone.output).toMatchObject({ ok: true, rows_checked: 2 });

    const { code, output } = await cliVerify('--account', account.id, '--checkpoints', file);
    expect(code).toBe(3);
    expect(output.ok).toBe(false);
    expect(output.breaks).toEqual([
      expect.objectContaining({
        chain_id: account.id,
        seq: 3,
        reason: expect.stringMatching(/ends at row 2 but the checkpoint of .* recorded row 7/),
      }),
    ]);
    // New rows after the deletion do not hide it: row 7 now has another hash than the checkpoint's.
    for (let i = 0; i < 6; i++) await api.request('GET', '/v1/usage', { key });
    await api.runtime.ctx.audit.flush();
    const refilled = await cliVerify('--account', account.id, '--checkpoints', file);
    expect(refilled.output.breaks).toEqual([
      expect.objectContaining({
        chain_id: account.id,
        seq: 7,
        reason: expect.stringMatching(/differs from the checkpoint/),
      }),
    ]);
  });

  it('names the account whose whole chain and head were deleted, evidence of its requests erased too', async () => {
    const { account } = await checkpointedAccount(4);
    await deleteChain(account.id);
    await db()
      .updateTable('api_keys')
      .set({ last_used_at: null })
      .where('account_id', '=', account.id)
      .execute();
    // Without checkpoints, the account and its key, whose creations the chain held, tell.
    const alone = (await cliVerify('--account', account.id)).output;
    expect(alone.breaks).toEqual([]);
    expect(
      alone.records.map((r: { table: string; reason: string }) => [r.table, r.reason.split(':')[0]]),
    ).toEqual([
      ['accounts', 'it is not in the audit log'],
      ['api_keys', 'it is not in the audit log'],
    ]);

    const { code, output } = await cliVerify('--account', account.id, '--checkpoints', file);
    expect(code).toBe(3);
    expect(output.breaks).toEqual([
      expect.objectContaining({
        chain_id: account.id,
        row_id: null,
        seq: 6,
        reason: expect.stringMatching(/does not exist, but the checkpoint .* row 6/),
      }),
    ]);
  });

  it('reports a checkpoint line whose content was altered, and does not trust it', async () => {
    const { account } = await checkpointedAccount(3);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const index = lines.findIndex((line) => line.includes(account.id));
    const forged = JSON.parse(lines[index]!);
    forged.audit_checkpoint.seq = 1;
    lines[index] = JSON.stringify(forged);
    const tampered = `${file}.tampered`;
    fs.writeFileSync(tampered, lines.join('\n'));

    const { code, output } = await cliVerify('--account', account.id, '--checkpoints', tampered);
    expect(code).toBe(3);
    expect(output.ok).toBe(false);
    expect(output.breaks).toEqual([]);
    expect(output.checkpoint_file.problems).toEqual([
      { line: index + 1, problem: expect.stringMatching(/signature does not match/) },
    ]);
    // The same file checked with another key: every checkpoint line is reported.
    const otherKey = await runAudit(['verify', '--account', account.id, '--checkpoints', file], {
      client: () => new AdminClient(api.baseUrl, { token: TEST_ADMIN_TOKEN, source: 'ADMIN_TOKEN' }),
      config: { auditCheckpointKey: randomBytes(32) },
    });
    expect(otherKey.code).toBe(3);
  });

  it('writes a checkpoint only for heads that moved, and a last one at shutdown', async () => {
    const { key } = await checkpointedAccount(1);
    expect(await api.runtime.auditCheckpoints!.run()).toBe(0);
    await api.request('GET', '/v1/usage', { key });
    await api.runtime.ctx.audit.flush();
    expect(await api.runtime.auditCheckpoints!.run()).toBe(1);
  });

  it('refuses malformed checkpoints with a problem naming the field', async () => {
    const { account } = await api.createAccount();
    const checkpoint = { chain_id: account.id, seq: 1, hash: 'f'.repeat(63), at: new Date().toISOString() };
    const refused = await api.admin('POST', '/admin/v1/audit/verify', { checkpoints: [checkpoint] });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: '/checkpoints/0/hash' })]);
  });

  it('passes an account that never made a request: only its creation is chained', async () => {
    const { account } = await api.createAccount();
    const result = await api.admin('POST', `/admin/v1/audit/verify?account=${account.id}`);
    expect(result.body).toEqual({
      ok: true,
      chains_checked: 1,
      rows_checked: 2,
      breaks: [],
      records_checked: 2,
      screenings_checked: 0,
      records: [],
    });
  });
});

describe('audit checkpoints at shutdown', () => {
  it('writes the heads of the last rows when the service stops', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'css-checkpoints-')), 'checkpoints.jsonl');
    const api = await TestApp.start(backends()[0]!, {
      env: { AUDIT_CHECKPOINT_KEY: CHECKPOINT_KEY.toString('hex'), AUDIT_CHECKPOINT_FILE: file },
    });
    const { key, account } = await api.createAccount();
    for (let i = 0; i < 2; i++) await api.request('GET', '/v1/usage', { key });
    await api.close();
    const checkpoints = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).audit_checkpoint);
    // The account's and its key's creations, then the two requests.
    expect(checkpoints).toContainEqual(expect.objectContaining({ chain_id: account.id, seq: 4 }));
  });

  it('writes checkpoints as log lines, which verify reads from the log among the other lines', async () => {
    const log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'css-checkpoints-')), 'service.log');
    const logger = pino({ level: 'info' }, pino.destination({ dest: log, sync: true }));
    const api = await TestApp.start(backends()[0]!, {
      env: { AUDIT_CHECKPOINT_KEY: CHECKPOINT_KEY.toString('hex'), AUDIT_CHECKPOINT_LOG: 'true' },
      logger,
    });
    try {
      const { key, account } = await api.createAccount();
      for (let i = 0; i < 2; i++) await api.request('GET', '/v1/usage', { key });
      await api.runtime.ctx.audit.flush();
      expect(await api.runtime.auditCheckpoints!.run()).toBeGreaterThan(0);
      logger.info('an unrelated line');
      const { code, output } = await runAudit(['verify', '--account', account.id, '--checkpoints', log], {
        client: () => new AdminClient(api.baseUrl, { token: TEST_ADMIN_TOKEN, source: 'ADMIN_TOKEN' }),
        config: { auditCheckpointKey: CHECKPOINT_KEY },
      });
      expect(output).toMatchObject({ ok: true, checkpoints_checked: 1, rows_checked: 4 });
      expect(code).toBe(0);
    } finally {
      await api.close();
    }
  });
});
