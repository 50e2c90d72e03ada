import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DASHBOARD_CONTENT_SECURITY_POLICY } from '../../src/dashboard/security-headers.js';
import { backends } from '../support/backends.js';
import { KNOWN_ROUTES } from '../support/hostile-app.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { OpenApiContract } from '../support/openapi-contract.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import type { RecordedRoute } from '../support/route-table.js';
import {
  createTenant,
  freshObject,
  ownedState,
  revokedKey,
  signedOutSession,
  suspend,
} from '../support/security-cast.js';
import {
  type Cast,
  COLUMNS,
  type Column,
  cellRequest,
  classify,
  destroys,
  type Expected,
  expectation,
  FIXTURE_LIST,
  fillPath,
  namesObject,
  OWN_COLUMNS,
  presenter,
} from '../support/security-matrix.js';
import { TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhooks-receiver.js';

const recorded = vi.hoisted(() => [] as RecordedRoute[]);
vi.mock('fastify', async (importOriginal) => {
  const { recordingFastify } = await import('../support/route-table.js');
  return recordingFastify(await importOriginal(), recorded);
});

const LISTS_DIR = FIXTURE_LISTS_DIR;

interface Cell {
  route: RecordedRoute;
  column: Column;
  path: string;
  expected: Expected;
  status: number;
  headers: Headers;
  body: string;
}

const label = (cell: Cell) => `${cell.route.method} ${cell.path} × ${cell.column}`;
const rowOf = (route: RecordedRoute) => `${route.method} ${route.url}`;

describe.each(backends())('security matrix ($name)', (backend) => {
  let api: TestApp;
  let drop: () => Promise<void>;
  let receiver: WebhookReceiver;
  let cast: Cast;
  let routes: RecordedRoute[];
  let contract: OpenApiContract;
  let untouched: string;
  const cells: Cell[] = [];
  /** Each row's answer without credentials: what credentials must not change on public routes. */
  const anonymous = new Map<string, number>();

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const isolated = await isolatedBackend(backend);
    drop = isolated.drop;
    recorded.length = 0;
    api = await TestApp.start(isolated.backend, {
      env: {
        LISTS_DIR,
        LISTS_ENABLED: FIXTURE_LIST,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_ALLOW_HTTP: 'true',
      },
    });
    routes = [...recorded];
    contract = new OpenApiContract(api.app.swagger() as never);
    await api.runtime.ctx.lists.settled();
    const [owner, other, suspended] = await Promise.all([1, 2, 3].map(() => createTenant(api, receiver.url)));
    const revoked = await revokedKey(api, owner!);
    const signedOut = await signedOutSession(api, owner!);
    await suspend(api, suspended!);
    cast = {
      owner: owner!,
      other: other!,
      suspended: suspended!,
      revokedKey: revoked,
      signedOut,
      receiverUrl: receiver.url,
    };
    untouched = await ownedState(api, [owner!.accountId, suspended!.accountId]);
  });
  afterAll(async () => {
    await api?.close();
    await drop?.();
    await receiver?.close();
  });

  /** Sends the request of one cell: the row's sample request with the column's credential. */
  async function send(route: RecordedRoute, column: Column): Promise<Cell> {
    const expected = expectation(route, column, cast);
    const kind = expected.served ? destroys(route) : undefined;
    const fresh = kind && (await freshObject(api, presenter(column, cast), kind, cast.receiverUrl));
    const { path, init } = cellRequest(route, column, cast, fresh || undefined);
    const response = await fetch(api.baseUrl + path, init);
    const { status, headers } = response;
    const cell = { route, column, path, expected, status, headers, body: await response.text() };
    cells.push(cell);
    return cell;
  }

  /** What is wrong with a cell's answer, if anything. */
  function mismatches(cell: Cell): string[] {
    const { expected, route } = cell;
    const found: string[] = [];
    const status = expected.status === 'anonymous' ? anonymous.get(rowOf(route)) : expected.status;
    if (cell.status !== status) found.push(`status ${cell.status}, expected ${status}`);
    if (expected.status === 'anonymous' && !(cell.status < 400))
      found.push('a public route answers an error');
    if (expected.problem && route.method !== 'HEAD') {
      const type = safeJson(cell.body)?.type;
      if (type !== `/problems/${expected.problem}`)
        found.push(`problem ${type}, expected ${expected.problem}`);
    }
    const location = cell.headers.get('location') ?? '';
    const where = expected.location;
    if (where && !(typeof where === 'string' ? location === where : where.test(location)))
      found.push(`Location ${location}`);
    if (!OWN_COLUMNS.includes(cell.column)) {
      for (const tenant of [cast.owner, cast.suspended]) {
        if (cell.body.includes(tenant.marker)) found.push('shows an object of an account the caller is not');
      }
    }
    found.push(...contractBreaches(cell));
    return found.map((m) => `${label(cell)}: ${m} (${cell.body.slice(0, 160)})`);
  }

  /** Answers of the API and the operator API are held to the published OpenAPI document. */
  function contractBreaches(cell: Cell): string[] {
    const kind = classify(cell.route);
    if ((kind !== 'customer' && kind !== 'operator') || cell.route.method === 'HEAD') return [];
    const type = cell.headers.get('content-type');
    const parsed = cell.body && /json/.test(type ?? '') ? JSON.parse(cell.body) : cell.body || undefined;
    try {
      contract.check(cell.route.method, cell.path, cell.status, type, parsed);
      return [];
    } catch (error) {
      return [`breaks the OpenAPI document: ${(error as Error).message.split('\n')[0]}`];
    }
  }

  async function run(columns: readonly Column[], rows = routes): Promise<string[]> {
    const found: string[] = [];
    for (const route of rows) {
      for (const column of columns) {
        const cell = await send(route, column);
        if (column === 'no credentials') anonymous.set(rowOf(route), cell.status);
        found.push(...mismatches(cell));
      }
    }
    return found;
  }

  it('classifies every route the app registers, and knows what each one needs', () => {
    const rows = routes.map(rowOf);
    expect(rows).toEqual(expect.arrayContaining(KNOWN_ROUTES));
    expect(rows.filter((r) => r.startsWith('GET /dashboard/')).length).toBeGreaterThanOrEqual(6);
    // Each of these throws, naming the route, for one the matrix cannot classify, fill or send.
    for (const route of routes) {
      fillPath(route, cast.owner);
      destroys(route);
      for (const column of COLUMNS) expectation(route, column, cast);
    }
    // A dashboard page added without saying who may use it is not taken for a public one.
    const unmarked = { method: 'GET', url: '/dashboard/new-page', auth: 'none' } as RecordedRoute;
    expect(() => classify(unmarked)).toThrow(/cannot classify GET \/dashboard\/new-page/);
  });

  it('refuses every route to a missing, malformed, unknown or revoked credential and to a suspended account', async () => {
    const failures = await run(['no credentials', 'malformed', 'unknown', 'revoked', 'suspended account']);
    expect(failures).toEqual([]);
  });

  it("answers 404 for another account's object on every route that names one, and never shows it", async () => {
    expect(await run(["other account's object"])).toEqual([]);
    expect(routes.filter((r) => namesObject(r)).length).toBeGreaterThanOrEqual(15);
  });

  it('leaves the keys, webhooks, batches, screenings, users, sessions and quota of the accounts unchanged after every refusal', async () => {
    expect(cells.length).toBeGreaterThan(0);
    expect(await ownedState(api, [cast.owner.accountId, cast.suspended.accountId])).toBe(untouched);
  });

  it('serves each realm to its own credential only: an API key, a dashboard session, the operator token', async () => {
    expect(await run(OWN_COLUMNS)).toEqual([]);
  });

  it('names no server software, and always sends nosniff, a request id and, for API credentials, no-store', () => {
    expect(cells).toHaveLength(routes.length * COLUMNS.length);
    for (const cell of cells) {
      expect(cell.headers.get('x-powered-by'), label(cell)).toBeNull();
      expect(cell.headers.get('server'), label(cell)).toBeNull();
      expect(cell.headers.get('x-content-type-options'), label(cell)).toBe('nosniff');
      expect(cell.headers.get('x-request-id'), label(cell)).toMatch(/^[0-9a-f-]{36}$/);
      if (['customer', 'operator'].includes(classify(cell.route)))
        expect(cell.headers.get('cache-control'), label(cell)).toBe('no-store');
    }
  });

  it("puts the dashboard's security headers on every dashboard answer, redirects and errors included", () => {
    const dashboard = cells.filter((cell) => cell.path.startsWith('/dashboard'));
    expect(dashboard.length).toBeGreaterThan(0);
    for (const cell of dashboard) {
      const header = (name: string) => cell.headers.get(name);
      expect(header('content-security-policy'), label(cell)).toBe(DASHBOARD_CONTENT_SECURITY_POLICY);
      expect(header('x-frame-options'), label(cell)).toBe('DENY');
      expect(header('referrer-policy'), label(cell)).toBe('same-origin');
      expect(header('cross-origin-opener-policy'), label(cell)).toBe('same-origin');
      expect(header('cross-origin-resource-policy'), label(cell)).toBe('same-origin');
      if (!cell.path.startsWith('/dashboard/assets/'))
        expect(header('cache-control'), label(cell)).toBe('no-store');
      if (cell.status >= 400) expect(header('content-type'), label(cell)).toMatch(/^text\/html/);
    }
  });

  it('answers every error outside the dashboard with a problem document of its own status', () => {
    const errors = cells.filter((cell) => cell.status >= 400 && !cell.path.startsWith('/dashboard'));
    expect(errors.length).toBeGreaterThan(0);
    for (const cell of errors) {
      expect(cell.headers.get('content-type'), label(cell)).toMatch(/^application\/problem\+json/);
      if (cell.route.method === 'HEAD') continue;
      expect(JSON.parse(cell.body), label(cell)).toMatchObject({
        type: expect.stringMatching(/^\/problems\/[a-z-]+$/),
        title: expect.any(String),
        status: cell.status,
        instance: cell.path.split('?')[0],
        request_id: cell.headers.get('x-request-id'),
      });
    }
  });

  it('keeps every account in its own audit chain, refused requests included, and every chain verifies', async () => {
    const { owner, other, suspended } = cast;
    for (const tenant of [owner, other, suspended]) {
      const result = await api.admin('POST', `/admin/v1/audit/verify?account=${tenant.accountId}`);
      expect(result.body, tenant.marker).toMatchObject({ ok: true, chains_checked: 1, breaks: [] });
      expect(result.body.rows_checked).toBeGreaterThan(0);
    }
    const all = await api.admin('POST', '/admin/v1/audit/verify');
    expect(all.body).toMatchObject({ ok: true, breaks: [] });
    const customerRows = routes.filter((r) => classify(r) === 'customer').length;
    const objectRows = routes.filter(
      (r) => ['customer', 'dashboard'].includes(classify(r)) && namesObject(r),
    ).length;
    expect(await auditCount({ key_id: cast.revokedKey.id, status: 403 })).toBe(customerRows);
    expect(await auditCount({ key_id: suspended.keyId, status: 403 })).toBe(customerRows);
    expect(await auditCount({ account_id: other.accountId, status: 404 })).toBe(objectRows);
  });

  async function auditCount(where: {
    key_id?: string;
    account_id?: string;
    status: number;
  }): Promise<number> {
    let query = api.runtime.ctx.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n'));
    for (const [column, value] of Object.entries(where))
      query = query.where(column as 'status', '=', value as never);
    return Number((await query.executeTakeFirstOrThrow()).n);
  }
});

function safeJson(text: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
