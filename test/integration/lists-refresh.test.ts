import { copyFileSync, mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_ENTITY_COUNTS, FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
const UN_COUNT = FIXTURE_ENTITY_COUNTS.un_sc;
const UN_XML = readFileSync(path.join(LISTS_DIR, 'consolidated.xml'));
const EU_XML = readFileSync(path.join(LISTS_DIR, 'xmlFullSanctionsList_1_1.xml'));
const EU_LOGIN_PAGE = `<!DOCTYPE html><html><head><title>EU Login</title></head>
<body><form action="/cas/login" method="post"><input name="username"></form></body></html>`;

/** The UN list without about a third of its individuals: a truncated but well-formed file. */
function shrunkenUnList(): Buffer {
  let dropped = 0;
  const text = UN_XML.toString('utf8').replace(/<INDIVIDUAL>[\s\S]*?<\/INDIVIDUAL>\s*/g, (record) =>
    dropped++ % 3 === 0 ? '' : record,
  );
  return Buffer.from(text);
}

async function listOf(api: TestApp, id: string) {
  const response = await api.admin('GET', '/admin/v1/lists');
  expect(response.status).toBe(200);
  return response.body.data.find((list: { id: string }) => list.id === id);
}

async function refresh(api: TestApp, id: string, query = '') {
  const response = await api.admin('POST', `/admin/v1/lists/${id}/refresh${query}`);
  expect(response.status).toBe(200);
  return response.body;
}

/** The list as its first load at start left it, as a refresh reports it. */
async function loadedAtStart(api: TestApp, id: string) {
  const { body } = await api.admin('GET', '/admin/v1/lists');
  const list = body.data.find((l: { id: string }) => l.id === id);
  return { outcome: list.last_outcome, list };
}

describe.each(backends())('official lists: fetching and refresh ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let server: ListServer;
  const apps: TestApp[] = [];

  // Each test gets its own database: list versions are not scoped to an account.
  async function start(env: Record<string, string>): Promise<TestApp> {
    const isolated = await isolatedBackend(shared);
    backend = isolated.backend;
    drop = isolated.drop;
    const api = await TestApp.start(backend, { env: { LISTS_REFRESH_INTERVAL_MINUTES: '0', ...env } });
    apps.push(api);
    return api;
  }

  beforeAll(async () => {
    server = await ListServer.start();
  });
  afterEach(async () => {
    for (const api of apps.splice(0)) await api.close();
    await drop?.();
  });
  afterAll(async () => server?.close());

  it('loads the lists of a mirror folder at start and reports version, list date, count and fresh', async () => {
    const api = await start({
      LISTS_DIR,
      LISTS_ENABLED: 'un_sc,eu_fsf,uk_fcdo,ofac_cons',
      LISTS_REFRESH_INTERVAL_MINUTES: '60',
    });
    await api.runtime.ctx.lists.settled();
    const { body } = await api.admin('GET', '/admin/v1/lists');
    const byId = Object.fromEntries(body.data.map((list: { id: string }) => [list.id, list]));
    expect(Object.keys(byId).sort()).toEqual(['eu_fsf', 'ofac_cons', 'uk_fcdo', 'un_sc']);
    expect(byId.un_sc).toMatchObject({ state: 'fresh', entity_count: UN_COUNT, list_date: '2026-02-27' });
    expect(byId.un_sc.version).toMatch(/^[0-9a-f]{64}$/);
    expect(byId.ofac_cons).toMatchObject({
      state: 'fresh',
      entity_count: FIXTURE_ENTITY_COUNTS.ofac_cons,
      format: 'ofac_legacy_csv',
    });
    expect(byId.eu_fsf).toMatchObject({ state: 'fresh', entity_count: 5 });
    expect(byId.uk_fcdo).toMatchObject({ state: 'fresh', entity_count: 5, last_outcome: 'accepted' });
    const health = await api.request('GET', '/v1/health');
    expect(health.body).toMatchObject({
      status: 'ok',
      sources: { un_sc: 'up', eu_fsf: 'up', uk_fcdo: 'up', ofac_cons: 'up' },
    });
    const entity = api.runtime.ctx.lists.view().entity('un_sc:6908555');
    expect(entity?.names[0]?.full).toBeDefined();
  });

  it('fetches each list once for its first load, also while a new embedded database is created', async () => {
    server.serve('/once/consolidated.xml', { body: UN_XML });
    const api = await start({ LISTS_ENABLED: 'un_sc', LIST_URL_UN_SC: server.url('/once/consolidated.xml') });
    const first = await loadedAtStart(api, 'un_sc');
    expect(first).toMatchObject({ outcome: 'accepted', list: { state: 'fresh', entity_count: UN_COUNT } });
    expect(server.requests.filter((r) => r.path === '/once/consolidated.xml')).toHaveLength(1);
  });

  it('reports a source failing at the first load, and asks it at most twice for it', async () => {
    server.serve('/failing/consolidated.xml', { body: 'unavailable', status: 503 });
    const api = await start({
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/failing/consolidated.xml'),
    });
    await api.runtime.ctx.lists.settled();
    expect(await listOf(api, 'un_sc')).toMatchObject({ state: 'missing', last_outcome: 'failed' });
    expect((await listOf(api, 'un_sc')).last_error).toMatch(/503/);
    // Once while the database was created, if that failed before the first load asked, once more.
    const asked = server.requests.filter((r) => r.path === '/failing/consolidated.xml').length;
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(2);
  });

  it('asks with the ETag of the version in service, and a 304 keeps that version', async () => {
    server.serve('/etag/consolidated.xml', { body: UN_XML });
    const api = await start({ LISTS_ENABLED: 'un_sc', LIST_URL_UN_SC: server.url('/etag/consolidated.xml') });
    // Loaded at start, though scheduled refreshes are off: the first load always happens.
    const first = await loadedAtStart(api, 'un_sc');
    expect(first).toMatchObject({ outcome: 'accepted', list: { state: 'fresh', entity_count: UN_COUNT } });
    const second = await refresh(api, 'un_sc');
    expect(second.outcome).toBe('unchanged');
    expect(second.list.version).toBe(first.list.version);
    const conditional = server.requests.filter((r) => r.path === '/etag/consolidated.xml');
    expect(conditional.at(-1)).toMatchObject({ status: 304 });
    expect(conditional.at(-1)?.headers['if-none-match']).toMatch(/^"[0-9a-f]{16}"$/);
  });

  it('follows a redirect on the same host but refuses one to another host, keeping the version', async () => {
    server.serve('/moved/consolidated.xml', { status: 302, headers: { location: '/real/consolidated.xml' } });
    server.serve('/real/consolidated.xml', { body: UN_XML });
    const api = await start({
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/moved/consolidated.xml'),
    });
    const accepted = await loadedAtStart(api, 'un_sc');
    expect(accepted.outcome).toBe('accepted');
    server.serve('/moved/consolidated.xml', {
      status: 302,
      headers: { location: 'http://lists.example.invalid/consolidated.xml' },
    });
    const refused = await refresh(api, 'un_sc', '?force=true');
    expect(refused).toMatchObject({ outcome: 'failed', list: { state: 'failed', entity_count: UN_COUNT } });
    expect(refused.list.last_error).toMatch(/another host \(lists\.example\.invalid\)/);
    expect(refused.list.version).toBe(accepted.list.version);
  });

  it('fails a download over the size cap', async () => {
    // The excerpt with a comment after its root element that takes it past one megabyte.
    const big = Buffer.concat([UN_XML, Buffer.from(`<!-- ${'padding '.repeat(150_000)}-->\n`)]);
    server.serve('/big/consolidated.xml', { body: big });
    const api = await start({
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/big/consolidated.xml'),
      LISTS_MAX_DOWNLOAD_MB: '1',
    });
    const report = await refresh(api, 'un_sc');
    expect(report).toMatchObject({ outcome: 'failed', list: { state: 'missing', version: null } });
    expect(report.list.last_error).toMatch(/over the 1048576-byte limit/);
  });

  it('treats an HTML login page instead of the XML as a failed download; the previous version stays', async () => {
    server.serve('/eu/xmlFullSanctionsList_1_1.xml', { body: EU_XML });
    const api = await start({
      LISTS_ENABLED: 'eu_fsf',
      LIST_URL_EU_FSF: server.url('/eu/xmlFullSanctionsList_1_1.xml'),
    });
    const accepted = await loadedAtStart(api, 'eu_fsf');
    expect(accepted.outcome).toBe('accepted');
    server.serve('/eu/xmlFullSanctionsList_1_1.xml', {
      body: EU_LOGIN_PAGE,
      headers: { 'content-type': 'text/html' },
    });
    const html = await refresh(api, 'eu_fsf');
    expect(html).toMatchObject({ outcome: 'failed', list: { state: 'failed', entity_count: 5 } });
    expect(html.list.last_error).toMatch(/HTML page/);
    // The same page labelled as XML gets past the download and is refused by the parser.
    server.serve('/eu/xmlFullSanctionsList_1_1.xml', {
      body: EU_LOGIN_PAGE,
      headers: { 'content-type': 'application/xml' },
    });
    const labelled = await refresh(api, 'eu_fsf', '?force=true');
    expect(labelled.outcome).toBe('failed');
    expect(labelled.list.last_error).toMatch(/^eu_fsf: xmlFullSanctionsList_1_1\.xml .*HTML page/);
    expect(labelled.list.version).toBe(accepted.list.version);
    expect((await api.request('GET', '/v1/health')).body).toMatchObject({
      status: 'degraded',
      sources: { eu_fsf: 'slow' },
    });
  });

  it('rejects a version more than 20% smaller (stale) and accepts it when forced', async () => {
    server.serve('/shrink/consolidated.xml', { body: UN_XML });
    const api = await start({
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/shrink/consolidated.xml'),
    });
    const accepted = await refresh(api, 'un_sc');
    server.serve('/shrink/consolidated.xml', { body: shrunkenUnList() });
    const rejected = await refresh(api, 'un_sc');
    expect(rejected).toMatchObject({ outcome: 'rejected', list: { state: 'stale', entity_count: UN_COUNT } });
    expect(rejected.list.version).toBe(accepted.list.version);
    expect(rejected.list.last_error).toMatch(new RegExp(`fewer than the ${UN_COUNT} in service`));
    expect((await api.request('GET', '/v1/health')).body.sources).toEqual({ un_sc: 'slow' });
    const forced = await api.admin('POST', '/admin/v1/lists/un_sc/refresh', { force: true });
    expect(forced.body).toMatchObject({ outcome: 'accepted', list: { state: 'fresh', last_error: null } });
    expect(forced.body.list.entity_count).toBeLessThan(0.8 * UN_COUNT);
    expect(forced.body.list.version).not.toBe(accepted.list.version);
  });

  it('starts with no stored version and no reachable source: the list is missing and health says down', async () => {
    const api = await start({
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: 'http://127.0.0.1:9/consolidated.xml',
      LISTS_REFRESH_INTERVAL_MINUTES: '60',
    });
    await api.runtime.ctx.lists.settled();
    const list = await listOf(api, 'un_sc');
    expect(list).toMatchObject({
      state: 'missing',
      version: null,
      entity_count: null,
      last_outcome: 'failed',
    });
    expect(list.last_error).toMatch(/127\.0\.0\.1:9/);
    // The service runs, but with its only source down it cannot screen: health answers 503.
    const health = await api.request('GET', '/v1/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'down', database: 'up', sources: { un_sc: 'down' } });
    expect(api.runtime.ctx.lists.view().lists.has('un_sc')).toBe(false);
  });

  it('answers 404 for an unknown list and 409 for a list that is not enabled', async () => {
    const api = await start({ LISTS_ENABLED: 'un_sc', LISTS_DIR });
    expect((await api.admin('POST', '/admin/v1/lists/nope/refresh')).status).toBe(404);
    const disabled = await api.admin('POST', '/admin/v1/lists/uk_ofsi/refresh');
    expect(disabled.status).toBe(409);
    expect(disabled.body.detail).toMatch(/not enabled/);
    expect((await api.request('GET', '/admin/v1/lists')).status).toBe(401);
  });
  it('reports a list published longer ago than its maximum age as stale everywhere, and still screens it', async () => {
    // The 2023 SDN (the fixture's publication), whose CSV states no date: its Last-Modified does.
    const lastModified = 'Thu, 28 Dec 2023 18:05:11 GMT';
    for (const [name, file] of [
      ['SDN.CSV', 'sdn.csv'],
      ['ALT.CSV', 'alt.csv'],
      ['ADD.CSV', 'add.csv'],
      ['SDN_COMMENTS.CSV', 'sdn_comments.csv'],
    ] as const) {
      server.serve(`/old-sdn/${name}`, {
        body: readFileSync(path.join(LISTS_DIR, file)),
        headers: { 'last-modified': lastModified },
      });
    }
    const api = await start({
      LISTS_ENABLED: 'ofac_sdn',
      LIST_URL_OFAC_SDN: server.url('/old-sdn/SDN.CSV'),
      LISTS_MAX_AGE_DAYS: 'ofac_sdn=14',
    });
    const sdn = await listOf(api, 'ofac_sdn');
    expect(sdn).toMatchObject({
      state: 'stale',
      list_date: '2023-12-28',
      max_age_days: 14,
      last_outcome: 'accepted',
    });
    expect(sdn.list_age_days).toBeGreaterThan(14);

    const health = await api.request('GET', '/v1/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      sources: { ofac_sdn: 'slow' },
      lists: {
        ofac_sdn: {
          state: 'stale',
          list_date: '2023-12-28',
          list_age_days: sdn.list_age_days,
          max_age_days: 14,
        },
      },
    });

    const { key } = await api.createAccount();
    const screened = await api.request('POST', '/v1/screen', {
      key,
      body: { query: 'Aerocaribbean Airlines' },
    });
    expect(screened.status).toBe(200);
    expect(screened.body.flags[0]).toMatchObject({ source: 'ofac_sdn', match_score: 1 });
    expect(screened.body).toMatchObject({
      complete: true,
      sources_failed: [],
      sources_stale: [{ source: 'ofac_sdn', list_date: '2023-12-28', list_age_days: sdn.list_age_days }],
    });
    const readBack = await api.request('GET', `/v1/screen/${screened.body.id}`, { key });
    expect(readBack.body.sources_stale).toEqual(screened.body.sources_stale);
  });

  it('judges a list by the date its file states, and a new publication makes it fresh again', async () => {
    const withDate = (day: string) =>
      Buffer.from(
        UN_XML.toString('utf8').replace(/dateGenerated="[^"]*"/, `dateGenerated="${day}T00:00:09.554Z"`),
      );
    server.serve('/dated/consolidated.xml', { body: withDate('2023-06-01') });
    const api = await start({
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/dated/consolidated.xml'),
      LISTS_MAX_AGE_DAYS: '',
    });
    expect(await listOf(api, 'un_sc')).toMatchObject({
      state: 'stale',
      list_date: '2023-06-01',
      max_age_days: 7,
    });

    const today = new Date().toISOString().slice(0, 10);
    server.serve('/dated/consolidated.xml', { body: withDate(today) });
    const refreshed = await refresh(api, 'un_sc');
    expect(refreshed).toMatchObject({
      outcome: 'accepted',
      list: { state: 'fresh', list_date: today, max_age_days: 7 },
    });
    expect(refreshed.list.list_age_days).toBeLessThanOrEqual(1);
    const health = await api.request('GET', '/v1/health');
    expect(health.body).toMatchObject({
      status: 'ok',
      lists: { un_sc: { state: 'fresh', list_date: today } },
    });
    const { key } = await api.createAccount();
    const screened = await api.request('POST', '/v1/screen', {
      key,
      body: { query: 'Saddam Hussein Al-Tikriti' },
    });
    expect(screened.body.sources_stale).toEqual([]);
  });

  it("dates a list read from a mirror folder whose file states none by the file's modification time", async () => {
    const mirror = mkdtempSync(path.join(os.tmpdir(), 'css-old-mirror-'));
    try {
      for (const file of ['sdn.csv', 'alt.csv', 'add.csv', 'sdn_comments.csv']) {
        copyFileSync(path.join(LISTS_DIR, file), path.join(mirror, file));
        utimesSync(path.join(mirror, file), new Date(), new Date('2023-12-28T18:05:11Z'));
      }
      const api = await start({ LISTS_DIR: mirror, LISTS_ENABLED: 'ofac_sdn', LISTS_MAX_AGE_DAYS: '' });
      expect(await listOf(api, 'ofac_sdn')).toMatchObject({
        state: 'stale',
        list_date: '2023-12-28',
        max_age_days: 14,
      });
    } finally {
      rmSync(mirror, { recursive: true, force: true });
    }
  });
});
