import { randomBytes } from 'node:crypto';
import { HOME_PATH, SESSION_COOKIE, SIGN_IN_PATH } from '../../src/dashboard/session-guard.js';
import type { ErrorCode } from '../../src/errors.js';
import type { RecordedRoute } from './route-table.js';
import { type Disposable, PASSWORD, type Session, type Tenant } from './security-cast.js';
import { TEST_ADMIN_TOKEN } from './test-app.js';

/** The credentials each route is tried with: one column of the matrix each. */
export const COLUMNS = [
  'no credentials',
  'malformed',
  'unknown',
  'revoked',
  'suspended account',
  "other account's object",
  'API key',
  'dashboard session',
  'operator token',
] as const;
export type Column = (typeof COLUMNS)[number];

/** The columns whose credential is the owner's own (of one realm or another). */
export const OWN_COLUMNS: readonly Column[] = ['API key', 'dashboard session', 'operator token'];

/**
 * Who a route is for: `customer` (an API key), `operator` (the operator token), `dashboard` (a
 * signed-in session), `sign-in` (the dashboard's public pages), `public` (anyone, credentials or not).
 */
export type RouteClass = 'customer' | 'operator' | 'dashboard' | 'sign-in' | 'public';

/** The people and objects the matrix aims at. */
export interface Cast {
  /** Owns the objects every column aims at (the suspended column aims at `suspended`'s own). */
  owner: Tenant;
  other: Tenant;
  suspended: Tenant;
  revokedKey: { key: string; id: string };
  signedOut: Session;
  receiverUrl: string;
}

export interface Expected {
  /** The status, or `anonymous`: the answer the route gives without any credential (never an error). */
  status: number | 'anonymous';
  problem?: ErrorCode;
  location?: string | RegExp;
  /** The request is accepted (and so does what it asks: a destructive one gets a fresh object). */
  served?: boolean;
}

/** Routes anyone may use: what credentials come with a request must change nothing. */
const PUBLIC_ROUTES = [
  /^\/v1\/health$/,
  /^\/v1\/openapi\.json$/,
  /^\/docs(\/|$)/,
  /^\/problems\/:code$/,
  /^\/dashboard\/assets\//,
  /^\/$/,
];

export function classify(route: RecordedRoute): RouteClass {
  if (route.auth === 'key') return 'customer';
  if (route.auth === 'admin') return 'operator';
  if (route.dashboard === 'signed-in') return 'dashboard';
  if (route.dashboard === 'public') return 'sign-in';
  if (PUBLIC_ROUTES.some((pattern) => pattern.test(route.url))) return 'public';
  throw new Error(
    `The security matrix cannot classify ${route.method} ${route.url}: give the route config.auth or ` +
      'config.dashboard, or add it to the public routes of test/support/security-matrix.ts.',
  );
}

export const FIXTURE_LIST = 'uk_fcdo';

/** A flag of a screening: its two parameters name one object, the screening's flag. */
const FLAG_PATH = /:id\/flags\/:flag_id/;

/** What each parameter names, by the path it is in (the first pattern that matches wins). */
const PARAMETERS: Array<[RegExp, keyof Tenant | 'fixed', (tenant: Tenant) => string]> = [
  [FLAG_PATH, 'flaggedScreeningId', (t) => `${t.flaggedScreeningId}/flags/${encodeURIComponent(t.flagId)}`],
  [/\/screen\/batch\/:id/, 'batchId', (t) => t.batchId],
  [/\/(screen|screenings)\/:id/, 'screeningId', (t) => t.screeningId],
  [/\/keys\/:id/, 'targetKeyId', (t) => t.targetKeyId],
  [/\/webhooks\/:id/, 'webhookId', (t) => t.webhookId],
  [/\/decisions\/:id/, 'decisionId', (t) => t.decisionId],
  [/\/monitors\/imports\/:id/, 'importId', (t) => t.importId],
  [/\/monitors\/:id/, 'monitorId', (t) => t.monitorId],
  [/\/alerts\/:id/, 'alertId', (t) => t.alertId],
  [/\/accounts\/:id/, 'accountId', (t) => t.accountId],
  [/\/users\/:id/, 'userId', (t) => t.userId],
  [/\/lists\/:id/, 'fixed', () => FIXTURE_LIST],
  [/^\/problems\/:code$/, 'fixed', () => 'not-found'],
  [/^\/docs\/static\/\*$/, 'fixed', () => 'index.css'],
  [/^\/dashboard\/assets\/vendor\/\*$/, 'fixed', () => 'htmx.min.js'],
  [/^\/dashboard\/assets\/\*$/, 'fixed', () => 'dashboard.css'],
];

const DISPOSABLES: Partial<Record<keyof Tenant, Disposable>> = {
  batchId: 'batch',
  targetKeyId: 'key',
  webhookId: 'webhook',
  userId: 'user',
  decisionId: 'decision',
  monitorId: 'monitor',
};

function parameterOf(route: RecordedRoute) {
  const count = route.url.replace(FLAG_PATH, ':flag').match(/:\w+|\*/g)?.length ?? 0;
  if (count === 0) return undefined;
  const entry = PARAMETERS.find(([pattern]) => pattern.test(route.url));
  if (!entry || count > 1) {
    throw new Error(`The security matrix does not know what the parameters of ${route.url} name.`);
  }
  return entry;
}

/** A route of a customer that names one of the account's objects in its path. */
export function namesObject(route: RecordedRoute): boolean {
  const entry = parameterOf(route);
  return entry !== undefined && entry[1] !== 'fixed';
}

/** The route's path aimed at the tenant's object, or at `fresh` (an object made to be destroyed). */
export function fillPath(route: RecordedRoute, tenant: Tenant, fresh?: string): string {
  const entry = parameterOf(route);
  if (!entry) return route.url;
  return route.url.replace(FLAG_PATH, ':flag').replace(/:\w+|\*/, fresh ?? entry[2](tenant));
}

/**
 * What an accepted request of the route destroys, so that it gets a fresh one: the object its
 * path names for a deletion or a revocation, the session itself for a sign-out.
 */
export function destroys(route: RecordedRoute): Disposable | undefined {
  if (route.url.endsWith('/sign-out')) return 'session';
  if (route.method !== 'DELETE' && !/\/(revoke|delete)$/.test(route.url)) return undefined;
  const field = parameterOf(route)?.[1];
  const kind = field === undefined || field === 'fixed' ? undefined : DISPOSABLES[field];
  if (!kind)
    throw new Error(`The security matrix cannot make a fresh object for ${route.method} ${route.url}.`);
  return kind;
}

interface Sample {
  status: number;
  /** Where an accepted request is sent on (a redirect that is not a refusal). */
  location?: RegExp;
  json?: unknown;
  form?: Record<string, string>;
}

/** A request each route with a body accepts (and its status), sent in every column alike. */
function samples(cast: Cast): Record<string, Sample> {
  const url = `${cast.receiverUrl}/matrix`;
  const email = `matrix-${randomBytes(6).toString('hex')}@example.com`;
  return {
    'POST /v1/screen': { status: 200, json: { query: 'Matrix Control' } },
    'POST /v1/screen/batch': { status: 202, json: { items: [{ query: 'Matrix Control' }] } },
    'POST /v1/keys': { status: 201, json: { name: 'matrix' } },
    'POST /v1/webhooks': { status: 201, json: { url } },
    'POST /v1/screen/:id/flags/:flag_id/decision': {
      status: 201,
      json: { decision: 'true_match', note: 'matrix' },
    },
    'POST /v1/monitors': { status: 201, json: { query: 'Matrix Control' } },
    'POST /v1/monitors/import': { status: 202, json: { items: [{ query: 'Matrix Control' }] } },
    'POST /v1/alerts/:id/close': { status: 200, json: { note: 'matrix' } },
    'POST /admin/v1/accounts': { status: 201, json: { name: 'matrix', plan: 'starter' } },
    'PATCH /admin/v1/accounts/:id': { status: 200, json: { rate_limit_per_minute: 1_000_000 } },
    'POST /admin/v1/accounts/:id/keys': { status: 201, json: { name: 'matrix' } },
    'POST /admin/v1/accounts/:id/users': { status: 201, json: { email } },
    'POST /admin/v1/audit/verify': { status: 200 },
    'POST /admin/v1/lists/:id/refresh': { status: 200 },
    'POST /dashboard/sign-in': { status: 403, form: { email: cast.owner.email, password: PASSWORD } },
    'POST /dashboard/sign-out': { status: 303 },
    'POST /dashboard/keys': { status: 201, form: { name: 'matrix' } },
    'POST /dashboard/keys/:id/revoke': { status: 200, form: { confirm: 'yes' } },
    'POST /dashboard/screen': {
      status: 303,
      location: /^\/dashboard\/screenings\/[0-9a-f-]{36}\?answered=live$/,
      form: { query: 'Matrix Control', type: 'person' },
    },
    'POST /dashboard/webhooks': { status: 201, form: { url, events: 'screening.complete' } },
    'POST /dashboard/webhooks/:id/delete': { status: 200, form: { confirm: 'yes' } },
    'POST /dashboard/monitors': { status: 201, form: { query: 'Matrix Control', type: 'person' } },
    'POST /dashboard/monitors/:id/delete': { status: 200, form: { confirm: 'yes' } },
    'POST /dashboard/monitors/import': { status: 201, form: { csv: 'query\nMatrix Control\n' } },
    'POST /dashboard/alerts/:id/close': {
      status: 303,
      location: /^\/dashboard\/alerts\?status=open&closed=yes$/,
      form: { note: 'matrix' },
    },
    'POST /dashboard/screenings/:id/flags/:flag_id/decision': {
      status: 303,
      location: /^\/dashboard\/review\?decided=true_match$/,
      form: { decision: 'true_match', note: 'matrix' },
    },
  };
}

export function sampleOf(route: RecordedRoute, cast: Cast): Sample {
  const sample = samples(cast)[`${route.method} ${route.url}`];
  if (sample) return sample;
  if (route.method === 'GET' || route.method === 'HEAD') return { status: 200 };
  if (route.method === 'DELETE') return { status: 204 };
  throw new Error(`The security matrix has no sample request for ${route.method} ${route.url}: add one.`);
}

const NOT_FOUND: Expected = { status: 404, problem: 'not-found' };
const ANONYMOUS: Expected = { status: 'anonymous' };

export function expectation(route: RecordedRoute, column: Column, cast: Cast): Expected {
  const sample = sampleOf(route, cast);
  const served: Expected = { status: sample.status, location: sample.location, served: true };
  const other = column === "other account's object";
  switch (classify(route)) {
    case 'customer':
      if (column === 'API key') return served;
      if (column === 'revoked') return { status: 403, problem: 'key-revoked' };
      if (column === 'suspended account') return { status: 403, problem: 'account-suspended' };
      if (other) return namesObject(route) ? NOT_FOUND : served;
      return { status: 401, problem: 'unauthenticated' };
    case 'operator':
      return column === 'operator token' ? served : { status: 401, problem: 'admin-unauthenticated' };
    case 'dashboard':
      if (column === 'dashboard session') return served;
      if (other) return namesObject(route) ? { status: 404 } : served;
      return { status: 303, location: SIGN_IN_PATH };
    case 'sign-in':
      // The sign-in form without its own token is refused, whoever posts it.
      if (route.method === 'POST') return { status: 403 };
      // A signed-in user (of any account) is sent on to the dashboard itself.
      return column === 'dashboard session' || other ? { status: 303, location: HOME_PATH } : ANONYMOUS;
    case 'public':
      return ANONYMOUS;
  }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const session = (s: Session) => ({ cookie: `${SESSION_COOKIE}=${s.token}`, 'x-csrf-token': s.csrf });
const cookie = (token: string) => ({ cookie: `${SESSION_COOKIE}=${token}` });

/** A well-formed key (cs_live_ and 32 base62 characters) that was never issued. */
function unknownKey(): string {
  const letters = [...randomBytes(32)].map((b) => 'abcdefghijklmnopqrstuvwxyzABCDEF'[b % 32]).join('');
  return `cs_live_${letters}`;
}

/**
 * The column's credential in the route's realm: the dashboard's are session cookies (with the
 * session's CSRF token), the API's and the operator's are Authorization headers.
 */
function credential(route: RecordedRoute, column: Column, cast: Cast): Record<string, string> {
  const dashboard = route.url.startsWith('/dashboard');
  switch (column) {
    case 'no credentials':
      return {};
    case 'malformed':
      return dashboard ? cookie('not-a-session-token') : bearer('cs_live_not-a-key');
    case 'unknown':
      return dashboard ? cookie(randomBytes(32).toString('base64url')) : bearer(unknownKey());
    case 'revoked':
      return dashboard ? session(cast.signedOut) : bearer(cast.revokedKey.key);
    case 'suspended account':
      return dashboard ? session(cast.suspended.session) : bearer(cast.suspended.key);
    case "other account's object":
      return dashboard ? session(cast.other.session) : bearer(cast.other.key);
    case 'API key':
      return bearer(cast.owner.key);
    case 'dashboard session':
      return session(cast.owner.session);
    case 'operator token':
      return bearer(TEST_ADMIN_TOKEN);
  }
}

/** Whose fresh object an accepted request of the column consumes (only own and other columns are accepted). */
export function presenter(column: Column, cast: Cast): Tenant {
  return column === "other account's object" ? cast.other : cast.owner;
}

/**
 * The request of one cell: the row's sample request (the same in every column, so that only the
 * credential differs), aimed at the column's target, or at `fresh` (an object or a session made for
 * an accepted destructive request to consume).
 */
export function cellRequest(
  route: RecordedRoute,
  column: Column,
  cast: Cast,
  fresh?: string | Session,
): { path: string; init: RequestInit } {
  const headers = credential(route, column, cast);
  if (typeof fresh === 'object') Object.assign(headers, session(fresh));
  const target = column === 'suspended account' ? cast.suspended : cast.owner;
  const path = fillPath(route, target, typeof fresh === 'string' ? fresh : undefined);
  const sample = sampleOf(route, cast);
  let body: string | undefined;
  if (sample.json !== undefined) {
    body = JSON.stringify(sample.json);
    headers['content-type'] = 'application/json';
  } else if (sample.form) {
    body = new URLSearchParams(sample.form).toString();
    headers['content-type'] = 'application/x-www-form-urlencoded';
  }
  return { path, init: { method: route.method, headers, body, redirect: 'manual' } };
}
