import { expect } from 'vitest';
import { DASHBOARD_PREFIX } from '../../src/dashboard/paths.js';
import { EndpointGuard, type Resolve } from '../../src/webhooks/endpoint-guard.js';
import { SecretBox } from '../../src/webhooks/secret-box.js';
import { WebhookService } from '../../src/webhooks/webhook-service.js';
import { WebhookSubscriptions } from '../../src/webhooks/webhook-subscriptions.js';
import type { Backend } from './backends.js';
import { isolatedBackend } from './isolated-database.js';
import { FIXTURE_LISTS_DIR } from './real-lists.js';
import type { RecordedRoute } from './route-table.js';
import { TEST_ADMIN_TOKEN, TestApp } from './test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
/** The smallest official list: screenings and batches have a real source to run against. */
const FIXTURE_LIST = 'uk_fcdo';
/** A public address literal: registering it resolves nothing, and its account never screens. */
const FIXTURE_WEBHOOK_URL = 'https://93.184.215.14/hooks';
const NIL_ID = '00000000-0000-4000-8000-000000000000';

/** Hostile webhook URLs must never cause a DNS query (let alone a connection): every name is unknown. */
const noName: Resolve = async () => {
  throw Object.assign(new Error('no such name (test resolver)'), { code: 'ENOTFOUND' });
};

/** Resources every enumeration must find; a route table without them was not read from the app. */
export const KNOWN_ROUTES = [
  'GET /v1/health',
  'POST /v1/screen',
  'GET /v1/screen/:id',
  'POST /v1/screen/batch',
  'GET /v1/screen/batch/:id',
  'DELETE /v1/screen/batch/:id',
  'POST /v1/keys',
  'GET /v1/keys',
  'DELETE /v1/keys/:id',
  'GET /v1/usage',
  'GET /v1/audit',
  'POST /v1/webhooks',
  'GET /v1/webhooks/:id',
  'DELETE /v1/webhooks/:id',
  'GET /v1/webhooks/:id/deliveries',
  'GET /v1/openapi.json',
  'POST /admin/v1/accounts',
  'PATCH /admin/v1/accounts/:id',
  'POST /admin/v1/accounts/:id/keys',
  'DELETE /admin/v1/keys/:id',
  'POST /admin/v1/lists/:id/refresh',
  'POST /admin/v1/audit/verify',
];

/**
 * fast-check settings: a fixed number of runs, sized so that the three hostile-* files take under a
 * minute on two loaded cores. HOSTILE_SEED=<seed> replays a reported failure; HOSTILE_RUNS=<factor>
 * multiplies the runs for a deeper search on a quiet machine.
 */
export function runs(numRuns: number): { numRuns: number; seed?: number } {
  const seed = process.env.HOSTILE_SEED;
  const factor = Number(process.env.HOSTILE_RUNS ?? 1) || 1;
  return { numRuns: Math.ceil(numRuns * factor), ...(seed ? { seed: Number(seed) } : {}) };
}

/** The service under attack, with an object of each kind to aim at and credentials for every route. */
export class HostileApi {
  private constructor(
    readonly api: TestApp,
    readonly routes: RecordedRoute[],
    private readonly drop: () => Promise<void>,
    readonly main: { accountId: string; key: string },
    readonly hooks: { accountId: string; key: string; webhookId: string },
    readonly victim: { accountId: string },
    readonly screeningId: string,
    readonly batchId: string,
  ) {}

  /** `recorded` is the array the mocked fastify fills (see route-table.ts). */
  static async start(shared: Backend, recorded: RecordedRoute[]): Promise<HostileApi> {
    const { backend, drop } = await isolatedBackend(shared);
    recorded.length = 0;
    const api = await TestApp.start(backend, {
      env: { LISTS_DIR, LISTS_ENABLED: FIXTURE_LIST },
      adjust: (ctx) => ({
        ...ctx,
        webhooks: new WebhookService({
          db: ctx.db,
          clock: ctx.clock,
          guard: new EndpointGuard({ allowPrivateNetworks: false, allowHttp: false }, noName),
          secrets: new SecretBox(() => Buffer.alloc(32, 7)),
          subscriptions: new WebhookSubscriptions(ctx.db, false),
        }),
      }),
    });
    const routes = recorded.filter((r) => r.method !== 'HEAD');
    await api.runtime.ctx.lists.settled();
    const fast = async (accountId: string) => {
      const patched = await api.admin('PATCH', `/admin/v1/accounts/${accountId}`, {
        rate_limit_per_minute: 1_000_000,
      });
      expect(patched.status).toBe(200);
    };
    // The main account screens; the hooks account owns the webhook and never screens, so that
    // nothing is ever delivered anywhere; the victim account is the target of the operator routes.
    const main = await api.createAccount('enterprise');
    const hooks = await api.createAccount('professional');
    const victim = await api.createAccount('starter');
    await fast(main.account.id);
    await fast(hooks.account.id);
    const screening = await api.request('POST', '/v1/screen', {
      key: main.key,
      body: { query: 'Fixture Person' },
    });
    const batch = await api.request('POST', '/v1/screen/batch', {
      key: main.key,
      body: { items: [{ query: 'Fixture Person' }] },
    });
    const webhook = await api.request('POST', '/v1/webhooks', {
      key: hooks.key,
      body: { url: FIXTURE_WEBHOOK_URL },
    });
    expect([screening.status, batch.status, webhook.status]).toEqual([200, 202, 201]);
    return new HostileApi(
      api,
      routes,
      drop,
      { accountId: main.account.id, key: main.key },
      { accountId: hooks.account.id, key: hooks.key, webhookId: webhook.body.id },
      { accountId: victim.account.id },
      screening.body.id,
      batch.body.id,
    );
  }

  get port(): number {
    return Number(new URL(this.api.baseUrl).port);
  }

  /**
   * The route table holds every known resource and every operation of the OpenAPI document (a
   * second, independent listing), besides the hidden routes (docs, problem pages, dashboard).
   */
  expectCompleteRouteTable(): void {
    const names = this.routes.map((r) => `${r.method} ${r.url}`);
    expect(names.length).toBeGreaterThan(KNOWN_ROUTES.length);
    expect(names).toEqual(expect.arrayContaining(KNOWN_ROUTES));
    const paths = (this.api.app.swagger() as { paths: Record<string, object> }).paths;
    const documented = Object.entries(paths).flatMap(([url, operations]) =>
      Object.keys(operations).map((m) => `${m.toUpperCase()} ${url.replace(/\{(\w+)\}/g, ':$1')}`),
    );
    expect(documented.length).toBeGreaterThan(0);
    expect(names).toEqual(expect.arrayContaining(documented));
  }

  /** Valid credentials for the route (webhook routes use the account that never screens). */
  credentials(route: RecordedRoute): Record<string, string> {
    if (route.auth === 'admin') return { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    if (route.auth !== 'key') return {};
    const key = route.url.startsWith('/v1/webhooks') ? this.hooks.key : this.main.key;
    return { authorization: `Bearer ${key}` };
  }

  /** The same credentials as header lines for a raw request. */
  rawCredentials(route: RecordedRoute): Array<[string, string]> {
    return Object.entries(this.credentials(route));
  }

  /**
   * The route's URL with each parameter replaced: by `segment(name)` when given, else by an
   * existing object (for reads) or by an id that matches nothing (for changes, which must not
   * destroy the fixtures other properties aim at).
   */
  fillPath(route: RecordedRoute, segment?: (name: string) => string): string {
    return route.url.replace(/:(\w+)|\*/g, (_match, name: string | undefined) => {
      const param = name ?? '*';
      return segment ? segment(param) : this.fixture(route, param);
    });
  }

  /**
   * The URL a hostile body is sent to: the victim account for the operator's account routes and
   * the fixture list for a refresh, so that bodies that pass reach the operation; ids that match
   * nothing for deletions, which would otherwise remove the fixtures.
   */
  bodyTarget(route: RecordedRoute): string {
    return this.fillPath(route, (param) => {
      if (route.url.startsWith('/admin/v1/accounts/:id')) return this.victim.accountId;
      if (route.url.startsWith('/admin/v1/lists/')) return FIXTURE_LIST;
      return this.fixture(route, param);
    });
  }

  /** An existing object for the parameter (reads), or one that does not exist (changes). */
  fixture(route: RecordedRoute, param: string): string {
    const url = route.url;
    if (url.startsWith('/problems/')) return 'not-found';
    if (param === '*') return 'json';
    if (url.startsWith('/admin/v1/lists/')) return route.method === 'GET' ? FIXTURE_LIST : 'no_such_list';
    if (route.method !== 'GET') return NIL_ID;
    if (url.startsWith('/v1/screen/batch/')) return this.batchId;
    if (url.startsWith('/v1/screen/')) return this.screeningId;
    if (url.startsWith('/v1/webhooks/')) return this.hooks.webhookId;
    if (url.startsWith('/admin/v1/accounts/')) return this.victim.accountId;
    return NIL_ID;
  }

  /** Objects a refused request must not have created or changed (counts alone would miss edits). */
  async fingerprint(): Promise<string> {
    const db = this.api.runtime.ctx.db;
    const accounts = await db
      .selectFrom('accounts')
      .select(['id', 'name', 'plan', 'status', 'rate_limit_per_minute'])
      .orderBy('id')
      .execute();
    const keys = await db.selectFrom('api_keys').select(['id', 'name', 'revoked_at']).orderBy('id').execute();
    const webhooks = await db
      .selectFrom('webhooks')
      .select(['id', 'url', 'events', 'deleted_at'])
      .orderBy('id')
      .execute();
    const batches = await db.selectFrom('batches').select(['id', 'total']).orderBy('id').execute();
    const users = await db.selectFrom('users').select(['id']).orderBy('id').execute();
    return JSON.stringify({ accounts, keys, webhooks, batches, users });
  }

  async close(): Promise<void> {
    await this.api.close();
    await this.drop();
  }
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/** Pages of the customer dashboard: a browser UI with its own HTML error pages, not the API. */
export function isDashboardPage(url: string): boolean {
  if (!url.startsWith(DASHBOARD_PREFIX)) return false;
  const next = url.charAt(DASHBOARD_PREFIX.length);
  return next === '' || next === '/' || next === '?';
}

/**
 * The guarantee every hostile request is held to: never a 5xx, and every error of the API a
 * problem document whose status is the response's (the dashboard answers errors with HTML pages).
 */
export function expectHandled(answer: Answer, what: string, method = 'GET', url = what): void {
  const label = what.length > 300 ? `${what.slice(0, 300)}…` : what;
  expect(answer.status, `${label} -> ${answer.body.slice(0, 300)}`).toBeLessThan(500);
  if (answer.status < 400 || isDashboardPage(url)) return;
  expect(String(answer.headers['content-type']), label).toMatch(/^application\/problem\+json/);
  if (method === 'HEAD') return;
  const problem = JSON.parse(answer.body);
  expect(problem, label).toMatchObject({
    type: expect.stringMatching(/^\/problems\/[a-z-]+$/),
    title: expect.any(String),
    status: answer.status,
  });
}

/** Sends one request through `inject` and holds it to the guarantee; returns the answer. */
export async function injectHostile(
  hostile: HostileApi,
  request: {
    method: string;
    url: string;
    headers?: Record<string, string | string[]>;
    payload?: string | Buffer;
  },
): Promise<Answer> {
  const response = await hostile.api.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers ?? {},
    ...(request.payload !== undefined ? { payload: request.payload } : {}),
  });
  const answer = { status: response.statusCode, headers: response.headers, body: response.body };
  expectHandled(answer, `${request.method} ${request.url}`, request.method, request.url);
  return answer;
}

/**
 * Sends a request that may change state and, when it is refused, checks that it changed nothing.
 * Accepted requests may change things; refused ones must leave no partial state behind.
 */
export async function injectRefusedLeavesNoTrace(
  hostile: HostileApi,
  request: Parameters<typeof injectHostile>[1],
): Promise<Answer> {
  if (request.method === 'GET' || request.method === 'HEAD') return injectHostile(hostile, request);
  const before = await hostile.fingerprint();
  const answer = await injectHostile(hostile, request);
  if (answer.status >= 400)
    expect(await hostile.fingerprint(), `${request.method} ${request.url}`).toBe(before);
  return answer;
}

/** Own keys of the prototypes a polluting request would reach; compared before and after. */
export function prototypeSnapshot(): string[] {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype].map((p) =>
    Reflect.ownKeys(p).map(String).sort().join(','),
  );
}

export function expectUnpolluted(before: string[]): void {
  expect(prototypeSnapshot()).toEqual(before);
  const probe = {} as Record<string, unknown>;
  for (const name of ['polluted', 'isAdmin', 'x', 'toString2']) expect(probe[name]).toBeUndefined();
  expect(Object.getPrototypeOf(probe)).toBe(Object.prototype);
  expect(typeof probe.toString).toBe('function');
}

/** The service still answers its health check (and so the process and its database are up). */
export async function expectHealthy(hostile: HostileApi): Promise<void> {
  const health = await fetch(`${hostile.api.baseUrl}/v1/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({
    status: expect.stringMatching(/^(ok|degraded)$/),
    database: 'up',
  });
}
