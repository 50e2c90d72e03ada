import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collect,
  freePort,
  runCli,
  runEntry,
  serviceEnv,
  tempDataDir,
  waitForOutput,
} from '../support/service-process.js';

const LISTENING = /Server listening at http:\/\/127\.0\.0\.1:\d+/;

describe('the service as a process on the embedded default', () => {
  const dataDir = tempDataDir();
  let port: number;
  let env: NodeJS.ProcessEnv;
  let server: ReturnType<typeof runEntry>;
  let output: () => { stdout: string; stderr: string };
  let key: string;

  beforeAll(async () => {
    port = await freePort();
    env = serviceEnv({ DATA_DIR: dataDir, PORT: String(port) });
    server = runEntry('src/main.ts', [], env);
    ({ output } = collect(server));
    await waitForOutput(output, LISTENING);
    key = (await waitForOutput(output, /cs_live_[0-9A-Za-z]{32}/))[0];
  });
  afterAll(() => {
    server?.kill('SIGKILL');
  });

  it('creates the default account on first start and prints a key that works at once', async () => {
    expect(output().stdout).toMatch(/Created the account "default"/);
    expect(output().stdout).toContain(`${dataDir}/admin-token`);
    const response = await fetch(`http://127.0.0.1:${port}/v1/usage`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ tier: 'professional', monthly_limit: 2000 });
  });

  it('refuses a second process on the same data folder with a clear message', async () => {
    const second = runEntry('src/main.ts', [], { ...env, PORT: String(await freePort()) });
    const result = await collect(second).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/embedded database .* is in use by process \d+/);
  });

  it('lets the operator create an account from the CLI, which prints its first key as JSON with --json', async () => {
    const created = await runCli(
      ['admin', 'accounts', 'create', '--name', 'Acme', '--plan', 'starter', '--json'],
      env,
    );
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body.account).toMatchObject({ name: 'Acme', plan: 'starter', status: 'active' });
    expect(body.key.key).toMatch(/^cs_live_/);
    const suspended = await runCli(['admin', 'accounts', 'suspend', body.account.id, '--json'], env);
    expect(JSON.parse(suspended.stdout).status).toBe('suspended');
    const listed = await runCli(['admin', 'keys', 'list', '--account', body.account.id, '--json'], env);
    expect(JSON.parse(listed.stdout).data).toHaveLength(1);
  }, 180_000);

  it('prints tables and fields for people by default, with whole keys to copy', async () => {
    const created = await runCli(
      ['admin', 'accounts', 'create', '--name', 'Tabled', '--plan', 'starter'],
      env,
    );
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^account:$/m);
    expect(created.stdout).toMatch(/^ {2}name\s+Tabled$/m);
    expect(created.stdout).toMatch(/^ {2}key\s+cs_live_[0-9A-Za-z]{32}$/m);
    const listed = await runCli(['admin', 'accounts', 'list'], env);
    expect(listed.code).toBe(0);
    const [header, ...rows] = listed.stdout.trim().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+PLAN\s+STATUS/);
    expect(rows.some((row) => /\bTabled\s+starter\s+active\b/.test(row))).toBe(true);
    const lists = await runCli(['lists', 'status'], env);
    expect(lists.code).toBe(0);
    expect(lists.stdout).toMatch(/^ID\s+STATE\s+LIST DATE\s+LIST AGE DAYS\s+MAX AGE DAYS\s+ENTITY COUNT/);
  }, 180_000);

  it('answers --help of a command with its usage, not a stack trace', async () => {
    for (const args of [
      ['lists', 'status', '--help'],
      ['admin', '--help'],
      ['audit', 'verify', '-h'],
    ]) {
      const help = await runCli(args, env);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^screening ${args[0]} `, 'm'));
      expect(help.stderr).toBe('');
    }
    const unknownOption = await runCli(['lists', 'status', '--colour'], env);
    expect(unknownOption.code).toBe(1);
    expect(unknownOption.stderr).toMatch(/Unknown option '--colour'/);
    expect(unknownOption.stderr).not.toMatch(/\n\s+at /);
  }, 180_000);

  it('verifies the audit chains from the CLI', async () => {
    const verified = await runCli(['audit', 'verify', '--json'], env);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true });
  });

  it('says clearly when the operator token is wrong or the server unreachable', async () => {
    const wrongToken = await runCli(['admin', 'accounts', 'list'], { ...env, ADMIN_TOKEN: 'w'.repeat(30) });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/refused the operator token read from ADMIN_TOKEN/);
    // Another folder's token (a DATA_DIR left unset, here another instance's) is named by its file.
    const otherDir = tempDataDir();
    fs.writeFileSync(path.join(otherDir, 'admin-token'), `${'o'.repeat(43)}\n`);
    const otherToken = await runCli(['admin', 'accounts', 'list'], {
      ...env,
      ADMIN_TOKEN: '',
      DATA_DIR: otherDir,
    });
    expect(otherToken.code).toBe(1);
    expect(otherToken.stderr).toContain(
      `refused the operator token read from the file ${path.join(otherDir, 'admin-token')}`,
    );
    const unreachable = await runCli(['admin', 'accounts', 'list', '--url', 'http://127.0.0.1:9'], env);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/Cannot reach the service at http:\/\/127\.0\.0\.1:9/);
  }, 180_000);

  it('on SIGTERM finishes the request in flight, writes its audit row and exits 0', async () => {
    // A request whose body is still arriving when the signal comes.
    const body = JSON.stringify({ name: 'made during shutdown' });
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v1/keys',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'content-length': body.length,
      },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 5));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = collect(server).done;
    server.kill('SIGTERM');
    await waitForOutput(output, /shutting down/);
    request.end(body.slice(5));
    expect((await response).status).toBe(201);
    expect((await exited).code).toBe(0);

    // The restarted service has the audit row of that request: pending writes were flushed.
    const restarted = runEntry('src/main.ts', [], env);
    const { output: restartedOutput } = collect(restarted);
    try {
      await waitForOutput(restartedOutput, LISTENING);
      expect(restartedOutput().stdout).not.toMatch(/cs_live_/);
      const audit = await fetch(`http://127.0.0.1:${port}/v1/audit?path=/v1/keys&status=201`, {
        headers: { authorization: `Bearer ${key}` },
      });
      const rows = ((await audit.json()) as { data: unknown[] }).data;
      expect(rows).toHaveLength(1);
    } finally {
      restarted.kill('SIGKILL');
    }
  });
});

describe('configuration errors', () => {
  it('stop the process with a message naming the variable', async () => {
    const child = runEntry('src/main.ts', [], serviceEnv({ DATA_DIR: tempDataDir(), PORT: 'eighty' }));
    const result = await collect(child).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/PORT must be a whole number/);
  });
});
