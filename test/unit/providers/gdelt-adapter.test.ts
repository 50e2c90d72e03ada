import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GDELT_ARTICLES_CACHE_TTL_MS, GdeltAdapter } from '../../../src/sources/providers/gdelt.js';
import { ProviderHttp } from '../../../src/sources/providers/provider-http.js';
import type { SourceQuery } from '../../../src/sources/source.js';
import { FakeClock } from '../../support/fake-clock.js';
import { fixture, ProviderServer } from '../../support/provider-server.js';

const ARTLIST = fixture('gdelt-artlist.json');
const query: SourceQuery = { entity: 'vantorex holdings', type: 'entity', threshold: 0.5, limit: 10 };
const never = () => new AbortController().signal;

let server: ProviderServer;
let clock: FakeClock;

beforeEach(async () => {
  server = await ProviderServer.start();
  clock = new FakeClock('2026-02-15T00:00:00Z');
});
afterEach(() => server.close());

function adapter(timeoutMs = 2_000): GdeltAdapter {
  const http = new ProviderHttp({ provider: 'gdelt', timeoutMs, concurrency: 4, random: () => 0 });
  return new GdeltAdapter(
    http,
    { enabled: true, url: server.url('/api/v2/doc/doc'), timespanMonths: 24 },
    clock,
  );
}

const asked = () => server.requestsTo('/api/v2/doc/doc').length;

describe('GDELT adapter', () => {
  it('asks GDELT once for concurrent screenings of the same name', async () => {
    server.serve('/api/v2/doc/doc', { body: ARTLIST, delayMs: 100 });
    const gdelt = adapter();
    const answers = await Promise.all([1, 2, 3].map(() => gdelt.search(query, never())));
    expect(asked()).toBe(1);
    expect(answers.map((flags) => flags.length)).toEqual([10, 10, 10]);
  });

  it('lets one caller give up without failing the others waiting for the same call', async () => {
    server.serve('/api/v2/doc/doc', { body: ARTLIST, delayMs: 200 });
    const gdelt = adapter();
    const impatient = new AbortController();
    const first = gdelt.search(query, impatient.signal);
    const second = gdelt.search(query, never());
    setTimeout(() => impatient.abort(new Error('gave up')), 50);
    await expect(first).rejects.toThrow('gave up');
    expect(await second).toHaveLength(10);
    expect(asked()).toBe(1);
  });

  it('reuses the articles for another threshold or type, and asks again once they expire', async () => {
    server.serve('/api/v2/doc/doc', { body: ARTLIST });
    const gdelt = adapter();
    await gdelt.search(query, never());
    await gdelt.search({ ...query, threshold: 0.9 }, never());
    await gdelt.search({ ...query, type: 'person' }, never());
    expect(asked()).toBe(1);
    clock.advance(GDELT_ARTICLES_CACHE_TTL_MS + 1);
    await gdelt.search(query, never());
    expect(asked()).toBe(2);
  });

  it('does not keep a failure: the next screening asks again', async () => {
    server.serve('/api/v2/doc/doc', (_req, previous) => (previous < 2 ? { status: 503 } : { body: ARTLIST }));
    const gdelt = adapter();
    await expect(gdelt.search(query, never())).rejects.toMatchObject({ failure: 'http_status' });
    expect(await gdelt.search(query, never())).toHaveLength(10);
    expect(asked()).toBe(3);
  });

  it('sends the documented DOC 2.0 parameters', async () => {
    server.serve('/api/v2/doc/doc', { body: '{}' });
    expect(await adapter().search(query, never())).toEqual([]);
    const params = server.requests[0]!.query;
    expect(params.get('query')).toMatch(/^"vantorex holdings" \(fraud OR /);
    expect(Object.fromEntries(params)).toMatchObject({
      mode: 'artlist',
      format: 'json',
      timespan: '24months',
    });
  });
});
