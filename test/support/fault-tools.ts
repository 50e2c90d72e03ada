import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { collect, freePort, runEntry, serviceEnv, tempDataDir, waitForOutput } from './service-process.js';

export const FAULT_ADMIN_TOKEN = 'fault-admin-token-0123456789abcdef';
/** The longest a test waits for one answer of the service (its own request timeout is 30 s). */
const CALL_TIMEOUT_MS = 10_000;

/** Whether an executable is on the PATH (a fault test that needs it skips without it). */
export function hasExecutable(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;
}

/** A redis-server of the test's own on 127.0.0.1, without persistence, that the test may stop and start. */
export class OwnRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<OwnRedis> {
    const redis = new OwnRedis(await freePort());
    await redis.startAgain();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (again) on the same port, and waits until it accepts connections. */
  async startAgain(): Promise<void> {
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.process = child;
    const { output } = collect(child);
    await waitForOutput(output, /Ready to accept connections/, 10_000);
  }

  /** Stops it at once, as a crash or a restart would (SIGKILL: no goodbye to the clients). */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * A TCP proxy on 127.0.0.1 in front of another port, which the test can cut (every connection
 * dropped, new ones refused: what clients see while a database restarts) and restore.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  async restore(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  /** Drops every connection and refuses new ones until `restore`. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A service process on 127.0.0.1 as `npm start` runs it, with its bootstrap key. */
export interface ServiceUnderFault {
  url: string;
  key: string;
  process: ChildProcess;
  output: () => { stdout: string; stderr: string };
  /** SIGKILL, and waits for the exit. */
  kill(): Promise<void>;
}

export async function startServiceProcess(env: Record<string, string>): Promise<ServiceUnderFault> {
  const port = await freePort();
  const dataDir = tempDataDir();
  const child = runEntry(
    'src/main.ts',
    [],
    serviceEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      ADMIN_TOKEN: FAULT_ADMIN_TOKEN,
      LISTS_ENABLED: 'uk_fcdo',
      LOG_LEVEL: 'warn',
      // One process: the instance a test kills or cuts off is exactly the one it talks to.
      WORKERS: '1',
      ...env,
    }),
  );
  const { output, done } = collect(child);
  const url = `http://127.0.0.1:${port}`;
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await done;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      async () => (await fetch(`${url}/v1/health`).catch(() => undefined))?.ok === true,
      60_000,
    );
    // The key of the account made at a first start is printed before the server listens; a start
    // on a database that has it already prints none.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const key = /cs_live_[0-9A-Za-z]{32}/.exec(output().stdout)?.[0] ?? '';
    return { url, key, process: child, output, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}

/** Polls `check` every 50 ms until it holds; throws after `withinMs`. Returns the time it took. */
export async function waitUntil(check: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check().catch(() => false)) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`condition not reached within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; contentType: string | null; body: any }> {
  const response = await fetch(url + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    // Bounded, so that a load loop (and the clean-up waiting for it) ends even if a service hangs.
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type');
  return {
    status: response.status,
    contentType,
    body: /json/.test(contentType ?? '') ? JSON.parse(text) : text,
  };
}

/** The bootstrap account of a service: Enterprise, with no rate limit in the way of a load test. */
export async function unlimitDefaultAccount(service: ServiceUnderFault): Promise<void> {
  const accounts = await call(service.url, FAULT_ADMIN_TOKEN, 'GET', '/admin/v1/accounts');
  const id = accounts.body.data[0].id;
  const patched = await call(service.url, FAULT_ADMIN_TOKEN, 'PATCH', `/admin/v1/accounts/${id}`, {
    plan: 'enterprise',
    rate_limit_per_minute: 1_000_000,
  });
  if (patched.status !== 200) throw new Error(`account update failed: ${JSON.stringify(patched.body)}`);
}

export interface Answer {
  status: number;
  contentType: string | null;
  body: any;
  at: number;
}

/** Screenings with distinct queries sent by `concurrency` loops until `stop()`; every answer is kept. */
export function screeningLoad(service: { url: string; key: string }, concurrency: number) {
  const answers: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: concurrency }, async (_, loop) => {
    for (let n = 0; running; n++) {
      const query = `Load Test ${loop} ${n} ${randomBytes(3).toString('hex')}`;
      try {
        const answer = await call(service.url, service.key, 'POST', '/v1/screen', { query });
        answers.push({ ...answer, at: Date.now() });
      } catch (error) {
        answers.push({ status: 0, contentType: null, body: String(error), at: Date.now() });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  });
  return {
    answers,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}

/** A client of the test's own on a PostgreSQL URL (its `search_path` option included). */
export async function sqlClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

export function randomSecretKey(): string {
  return randomBytes(32).toString('hex');
}
