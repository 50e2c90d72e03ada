import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../test/support/service-process.js';

export interface RunningService {
  url: string;
  key: string;
  adminToken: string;
  /** The service's process id, for measuring its memory and CPU time. */
  pid: number;
  /** Everything the service has written to its standard output so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * The remote providers that are on by default (GDELT, GLEIF) stay off in benchmarks: they measure
 * this service, not the internet, and must not reach it.
 */
export const NO_REMOTE_PROVIDERS = { GDELT_ENABLED: 'false', GLEIF_ENABLED: 'false' } as const;

/** glibc's settings as `npm start` sets them (package.json): see "Memory" in docs/deployment.md. */
export const NPM_START_MALLOC = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '32768' } as const;

export interface StartOptions {
  /** A data folder to start on (and keep), e.g. to measure a restart; a fresh one by default. */
  dataDir?: string;
  /** A built entry (`dist/main.js`) to run as production does; `src/main.ts` under tsx by default. */
  entry?: string;
  /** Options for node itself, before the entry (e.g. V8's `--trace-gc`). */
  nodeArgs?: string[];
}

/**
 * Starts the service in its own process (as in production: one Node process, JSON logs off) on a
 * fresh data folder (or the one given, which it keeps) and returns the bootstrap key it prints.
 */
export async function startService(
  extraEnv: Record<string, string> = {},
  options: StartOptions = {},
): Promise<RunningService> {
  const port = await freePort();
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'css-bench-'));
  const adminToken = 'bench-admin-token-0123456789abcdef';
  const command = [
    ...(options.nodeArgs ?? []),
    ...(options.entry ? [options.entry] : ['--import', 'tsx', 'src/main.ts']),
  ];
  const child: ChildProcess = spawn(process.execPath, command, {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      // The mirrors benches read are snapshots that age: a list's age is not what they measure,
      // and a stale list makes health "degraded", which `waitUntilHealthy` would wait out forever.
      LISTS_MAX_AGE_DAYS: '0',
      ...NPM_START_MALLOC,
      ...NO_REMOTE_PROVIDERS,
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  const key = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(async () => {
      const match = /cs_live_[0-9A-Za-z]{32}/.exec(output);
      // A restart on a kept folder prints no key (the account exists): listening is enough then.
      if (!match && !options.dataDir) return;
      // Any answer means it listens; whether its sources are up is each bench's own business.
      const up = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
        () => true,
        () => false,
      );
      if (up) {
        clearInterval(timer);
        resolve(match?.[0] ?? '');
      }
    }, 100);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}: ${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    adminToken,
    pid: child.pid ?? 0,
    output: () => output,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A bench's `ENTRIES` item: a built entry, optionally after environment settings for that entry
 * alone (`MALLOC_MMAP_THRESHOLD_=16384 dist/main.js`), to compare settings as builds are compared.
 */
export function entryWithSettings(spec: string): { entry: string; env: Record<string, string> } {
  const words = spec.trim().split(/\s+/);
  const entry = words.pop() ?? '';
  const env: Record<string, string> = {};
  for (const word of words) {
    const equals = word.indexOf('=');
    if (equals <= 0)
      throw new Error(`"${spec}": expected NAME=VALUE settings before the entry, got "${word}"`);
    env[word.slice(0, equals)] = word.slice(equals + 1);
  }
  return { entry, env };
}

/** One JSON call with a bearer token (a key or the admin token); a non-2xx answer throws. */
// biome-ignore lint/suspicious/noExplicitAny: a bench reads the JSON it asked for, unchecked
export async function apiCall<T = any>(
  service: RunningService,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await fetch(service.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Puts the bootstrap account on the unlimited plan without a rate limit: a bench measures screening, not refusals. */
export async function liftAccountLimits(service: RunningService): Promise<void> {
  const accounts = await apiCall<{ data: { id: string }[] }>(
    service,
    service.adminToken,
    'GET',
    '/admin/v1/accounts',
  );
  await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${accounts.data[0]!.id}`, {
    plan: 'enterprise',
    rate_limit_per_minute: 1_000_000,
  });
}

/**
 * Until health is ok `inARow` times in a row: with several workers behind one port, every one of
 * them has loaded the lists by then.
 */
export async function waitUntilHealthy(service: RunningService, inARow = 20): Promise<void> {
  let seen = 0;
  while (seen < inARow) {
    const health = (await fetch(`${service.url}/v1/health`).then((r) => r.json())) as { status: string };
    seen = health.status === 'ok' ? seen + 1 : 0;
    if (seen === 0) await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
