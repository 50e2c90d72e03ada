import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backends } from '../support/backends.js';
import {
  expectHealthy,
  expectUnpolluted,
  HostileApi,
  injectHostile,
  injectRefusedLeavesNoTrace,
  prototypeSnapshot,
  runs,
} from '../support/hostile-app.js';
import { encodeSegment, hostileSegment, hostileString, LOADED_WORDS } from '../support/hostile-inputs.js';
import { queryFieldNames, type RecordedRoute } from '../support/route-table.js';

const recorded = vi.hoisted(() => [] as RecordedRoute[]);
vi.mock('fastify', async (importOriginal) => {
  const { recordingFastify } = await import('../support/route-table.js');
  return recordingFastify(await importOriginal(), recorded);
});

const hasParameters = (route: RecordedRoute) => /[:*]/.test(route.url);

/** Query parameter names: the route's own, names with a meaning to JavaScript or to key handling, junk. */
function parameterName(route: RecordedRoute): fc.Arbitrary<string> {
  const own = queryFieldNames(route);
  return fc.oneof(
    ...(own.length > 0 ? [fc.constantFrom(...own)] : []),
    fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'api_key',
      'limit[]',
      'a[b]',
      '',
      '=',
      '&',
      '%00',
    ),
    hostileString.map(encodeSegment),
  );
}

/** Query values: loaded words, numbers out of range, percent junk, random Unicode, 70 KB. */
const parameterValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...LOADED_WORDS).map(encodeSegment),
  fc.constantFrom(
    '0',
    '-1',
    '1.5',
    '1e3',
    '99999999999999999999',
    'true',
    'csv',
    'json',
    '4xx',
    '2024-02-30T25:00:00Z',
  ),
  hostileSegment,
  hostileString.map(encodeSegment),
);

/** A query string with duplicated parameters, empty pairs, arrays and odd separators. */
function hostileQuery(route: RecordedRoute): fc.Arbitrary<string> {
  return fc
    .record({
      pairs: fc.array(fc.tuple(parameterName(route), parameterValue), { maxLength: 5 }),
      duplicate: fc.boolean(),
      separator: fc.constantFrom('&', '&&', ';', '&amp;'),
      form: fc.constantFrom('pairs', 'bare names', 'raw'),
    })
    .map(({ pairs, duplicate, separator, form }) => {
      const all = duplicate && pairs.length > 0 ? [...pairs, ...pairs] : pairs;
      if (form === 'bare names') return all.map(([name]) => name).join(separator);
      if (form === 'raw')
        return all.map(([name, value]) => `${name}=${decodeLoosely(value)}`).join(separator);
      return all.map(([name, value]) => `${name}=${value}`).join(separator);
    });
}

/** Percent-decoded where possible: raw spaces, quotes and UTF-8 straight into the request target. */
function decodeLoosely(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

// Tests here walk every route of the app: far past one request's 30 s when the machine is busy.
describe.each(backends())('hostile paths and query strings ($name)', { timeout: 120_000 }, (backend) => {
  let hostile: HostileApi;
  const prototypes = prototypeSnapshot();
  beforeAll(async () => {
    hostile = await HostileApi.start(backend, recorded);
  });
  afterAll(async () => hostile?.close());

  it('enumerates every route of the app, the known resources among them', () => {
    hostile.expectCompleteRouteTable();
    expect(hostile.routes.filter(hasParameters).length).toBeGreaterThanOrEqual(10);
  });

  it('answers hostile path parameters on every route with a problem, and a refusal changes nothing', async () => {
    for (const route of hostile.routes.filter(hasParameters)) {
      await fc.assert(
        fc.asyncProperty(hostileSegment, async (segment) => {
          await injectRefusedLeavesNoTrace(hostile, {
            method: route.method,
            url: hostile.fillPath(route, () => segment),
            headers: hostile.credentials(route),
          });
        }),
        runs(10),
      );
    }
  });

  it('answers hostile whole paths (traversal, encodings, great length) with a problem', async () => {
    const prefixes = [...new Set(hostile.routes.map((r) => r.url.replace(/[:*].*$/, '')))];
    const path = fc
      .record({
        prefix: fc.constantFrom(...prefixes, '/', '//', '/v1/', '/admin/v1/', '/v2/'),
        segments: fc.array(hostileSegment, { minLength: 1, maxLength: 4 }),
        method: fc.constantFrom('GET', 'POST', 'DELETE', 'PATCH', 'PUT', 'OPTIONS', 'HEAD', 'PROPFIND'),
        auth: fc.constantFrom('key', 'admin', 'none'),
      })
      // Always the main account's key: a path that normalises onto another route never screens
      // with the account that owns the webhook (whose deliveries would leave the machine).
      .map(({ prefix, segments, method, auth }) => ({
        method,
        url: `${prefix}${segments.join('/')}`,
        headers: hostile.credentials({ method, url: '/v1/', auth: auth as 'key', schema: undefined }),
      }));
    await fc.assert(
      fc.asyncProperty(path, async (request) => {
        await injectRefusedLeavesNoTrace(hostile, request);
      }),
      runs(80),
    );
  });

  it('answers a hostile query string on every route with a problem, and a refusal changes nothing', async () => {
    for (const route of hostile.routes) {
      await fc.assert(
        fc.asyncProperty(hostileQuery(route), async (query) => {
          await injectRefusedLeavesNoTrace(hostile, {
            method: route.method,
            url: `${hostile.fillPath(route)}?${query}`,
            headers: hostile.credentials(route),
          });
        }),
        runs(6),
      );
    }
  });

  it('takes a parameter given twice as an array and refuses it where one value is expected', async () => {
    const limited = hostile.routes.filter((r) => r.method === 'GET' && queryFieldNames(r).includes('limit'));
    expect(limited.length).toBeGreaterThan(0);
    for (const route of limited) {
      const answer = await injectHostile(hostile, {
        method: 'GET',
        url: `${hostile.fillPath(route)}?limit=1&limit=2`,
        headers: hostile.credentials(route),
      });
      expect(answer.status, route.url).toBe(422);
    }
  });

  it('leaves Object.prototype unpolluted and the service answering its health check', async () => {
    expectUnpolluted(prototypes);
    await expectHealthy(hostile);
  });
});
