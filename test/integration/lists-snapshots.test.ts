import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { LIST_PARSERS } from '../../src/sources/lists/list-registry.js';
import { RefreshLock } from '../../src/sources/lists/refresh-lock.js';
import { LIST_SNAPSHOTS_KEPT_PER_LIST } from '../../src/sources/lists/snapshot-store.js';
import { openDatabase } from '../../src/store/database.js';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { ListServer } from '../support/list-server.js';
import { FIXTURE_ENTITY_COUNTS, FIXTURE_LISTS_DIR, itWithRealLists } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;
const UN_COUNT = FIXTURE_ENTITY_COUNTS.un_sc;
const UNREACHABLE = 'http://127.0.0.1:9/';

// Each test opens a database kept in a folder, some twice, and refreshes lists into it: more than
// the default timeout when the file shares a loaded machine with the files beside it.
describe.each(backends())('official lists: snapshots and swap ($name)', { timeout: 90_000 }, (shared) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A database of its own that survives a restart: a folder for PGlite, a schema for PostgreSQL. */
  async function durableDatabase(): Promise<{ backend: Backend; dataDir: string }> {
    const isolated = await isolatedBackend(shared);
    cleanups.push(isolated.drop);
    return { backend: isolated.backend, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'css-lists-')) };
  }

  async function start(db: { backend: Backend; dataDir: string }, env: Record<string, string>) {
    const api = await TestApp.start(db.backend, {
      dataDir: db.dataDir,
      inMemoryDatabase: false,
      env: { LISTS_REFRESH_INTERVAL_MINUTES: '0', ...env },
    });
    let closed = false;
    const close = async () => {
      if (!closed) await api.close();
      closed = true;
    };
    cleanups.push(close);
    return { api, close };
  }

  it('a restart loads the stored versions without any source reachable', async () => {
    const server = await ListServer.start();
    cleanups.push(() => server.close());
    server.serve('/un/consolidated.xml', { body: fs.readFileSync(path.join(LISTS_DIR, 'consolidated.xml')) });
    const db = await durableDatabase();
    const first = await start(db, {
      LISTS_ENABLED: 'un_sc,uk_fcdo',
      LISTS_DIR,
      LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
    });
    await first.api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    await first.api.admin('POST', '/admin/v1/lists/uk_fcdo/refresh');
    const before = (await first.api.admin('GET', '/admin/v1/lists')).body.data;
    const ukEntity = first.api.runtime.ctx.lists.view().lists.get('uk_fcdo')!.entities.at(2)!;
    await first.close();
    await server.close();

    const requestsBefore = server.requests.length;
    const second = await start(db, {
      LISTS_ENABLED: 'un_sc,uk_fcdo',
      LISTS_DIR: path.join(db.dataDir, 'no-such-mirror'),
      LIST_URL_UN_SC: `${UNREACHABLE}consolidated.xml`,
      LISTS_REFRESH_INTERVAL_MINUTES: '60',
    });
    await second.api.runtime.ctx.lists.settled();
    const after = (await second.api.admin('GET', '/admin/v1/lists')).body.data;
    expect(after).toEqual(before);
    expect(after.map((l: { state: string }) => l.state)).toEqual(['fresh', 'fresh']);
    expect(server.requests.length).toBe(requestsBefore);
    const view = second.api.runtime.ctx.lists.view();
    expect(view.lists.get('un_sc')?.entities).toHaveLength(UN_COUNT);
    expect(view.entity(`uk_fcdo:${ukEntity.source_id}`)).toEqual(ukEntity);
    const failed = await second.api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    expect(failed.body).toMatchObject({
      outcome: 'failed',
      list: { state: 'failed', entity_count: UN_COUNT },
    });
    expect(failed.body.list.version).toBe(before[0].version);
  });

  it('a new version is swapped in while a screening holding the old view keeps it whole', async () => {
    const server = await ListServer.start();
    cleanups.push(() => server.close());
    const full = fs.readFileSync(path.join(LISTS_DIR, 'consolidated.xml'), 'utf8');
    const smaller = full.replace(/<ENTITY>[\s\S]*?<\/ENTITY>\s*/, '');
    server.serve('/un/consolidated.xml', { body: full });
    const db = await durableDatabase();
    const { api } = await start(db, {
      LISTS_ENABLED: 'un_sc',
      LIST_URL_UN_SC: server.url('/un/consolidated.xml'),
    });
    await api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    const held = api.runtime.ctx.lists.view();
    const oldVersion = held.lists.get('un_sc')?.meta.version;
    server.serve('/un/consolidated.xml', { body: smaller });
    const swapped = await api.admin('POST', '/admin/v1/lists/un_sc/refresh');
    expect(swapped.body).toMatchObject({ outcome: 'accepted', list: { entity_count: UN_COUNT - 1 } });
    expect(held.lists.get('un_sc')?.meta.version).toBe(oldVersion);
    expect(held.lists.get('un_sc')?.entities).toHaveLength(UN_COUNT);
    expect(api.runtime.ctx.lists.view().lists.get('un_sc')?.entities).toHaveLength(UN_COUNT - 1);
  });

  // A full parse of every list (the first load, done at start) and two loads of everything:
  // minutes on a busy machine.
  itWithRealLists(
    'parses and stores every list of the mirror, big ones included, and reloads them from the database',
    async (realListsDir) => {
      const db = await durableDatabase();
      const first = await start(db, { LISTS_ENABLED: 'all', LISTS_DIR: realListsDir });
      const before = (await first.api.admin('GET', '/admin/v1/lists')).body.data;
      expect(before.find((l: { id: string }) => l.id === 'ofac_sdn')).toMatchObject({
        last_outcome: 'accepted',
        entity_count: 13821,
      });
      // SDN goes to the database in several chunks, none of them anywhere near the whole list.
      const chunks = await first.api.runtime.ctx.db
        .selectFrom('list_snapshot_chunks as c')
        .innerJoin('list_states as s', 's.snapshot_id', 'c.snapshot_id')
        .where('s.list_id', '=', 'ofac_sdn')
        .select(['c.entity_count', sql<number>`octet_length(c.names) + octet_length(c.records)`.as('bytes')])
        .execute();
      expect(chunks.length).toBeGreaterThan(2);
      expect(chunks.reduce((sum, chunk) => sum + chunk.entity_count, 0)).toBe(13821);
      for (const chunk of chunks) expect(Number(chunk.bytes)).toBeLessThan(1024 * 1024);
      const counts = Object.fromEntries(
        before.map((l: { id: string; entity_count: number }) => [l.id, l.entity_count]),
      );
      expect(counts).toMatchObject({ ofac_sdn: 13821, uk_ofsi: 4688 });
      // The CSL's copies of OFAC's lists are left out while OFAC's own lists are enabled.
      expect(counts.us_csl).toBeLessThan(14_160 - 10_026);
      await first.close();

      const second = await start(db, { LISTS_ENABLED: 'all', LISTS_DIR: path.join(db.dataDir, 'none') });
      const after = (await second.api.admin('GET', '/admin/v1/lists')).body.data;
      const versions = (lists: { id: string; version: string | null }[]) =>
        Object.fromEntries(lists.filter((l) => l.version !== null).map((l) => [l.id, l.version]));
      expect(Object.keys(versions(before))).toEqual(
        expect.arrayContaining(['ofac_sdn', 'uk_ofsi', 'us_csl']),
      );
      expect(versions(after)).toEqual(versions(before));
      const sdn = second.api.runtime.ctx.lists.view().lists.get('ofac_sdn');
      expect(sdn?.entities).toHaveLength(13821);
      expect(sdn?.entities.at(0)).toEqual(
        first.api.runtime.ctx.lists.view().lists.get('ofac_sdn')?.entities.at(0),
      );
    },
    180_000,
  );

  it('a version stored as one blob, before chunked snapshots, still loads after an upgrade and screens', async () => {
    const db = await durableDatabase();
    const env = { LISTS_ENABLED: 'un_sc', LISTS_DIR: path.join(db.dataDir, 'no-such-mirror') };
    const first = await start(db, env);
    const parser = LIST_PARSERS.find((p) => p.id === 'un_sc')!;
    const file = fs.readFileSync(path.join(LISTS_DIR, 'consolidated.xml'));
    const { entities, counts } = await parser.parse(new Map([['consolidated.xml', file]]));
    const blob = gzipSync(JSON.stringify(entities));
    const id = randomUUID();
    // The row exactly as the service wrote it before migration 0005.
    await first.api.runtime.ctx.db
      .insertInto('list_snapshots')
      .values({
        id,
        list_id: 'un_sc',
        version: 'f'.repeat(64),
        format: parser.format,
        list_date: '2026-02-27',
        fetched_at: new Date(),
        entity_count: entities.length,
        name_count: counts.names,
        counts: JSON.stringify(counts),
        files: '[]',
        parse_options: '{}',
        forced: false,
        warnings: '[]',
        entities: blob,
        entities_bytes: blob.byteLength,
        entities_encoding: 'json_gzip',
      })
      .execute();
    const now = new Date();
    // The first start tried to load the list (and failed: no mirror); the version is in service now.
    const state = { snapshot_id: id, checked_at: now, attempted_at: now, outcome: 'accepted', error: null };
    await first.api.runtime.ctx.db
      .insertInto('list_states')
      .values({ list_id: 'un_sc', ...state })
      .onConflict((oc) => oc.column('list_id').doUpdateSet(state))
      .execute();
    await first.close();

    const second = await start(db, env);
    const list = second.api.runtime.ctx.lists.view().lists.get('un_sc');
    expect(list?.meta.version).toBe('f'.repeat(64));
    expect([...list!.entities]).toEqual(entities);
    const haqqani = entities.find((e) => e.raw.REFERENCE_NUMBER === 'TAi.144')!;
    expect(second.api.runtime.ctx.lists.view().entity(`un_sc:${haqqani.source_id}`)).toEqual(haqqani);
    const { key } = await second.api.createAccount('enterprise');
    const screened = await second.api.request('POST', '/v1/screen', {
      key,
      body: { query: haqqani.names[0]!.full, type: 'person' },
    });
    expect(screened.status).toBe(200);
    expect(screened.body.flags[0]).toMatchObject({
      source: 'un_sc',
      match_score: 1,
      details: { source_id: haqqani.source_id, source_record: haqqani.raw },
    });
  });

  it('only the newest versions keep their entities; older ones keep their metadata', async () => {
    const server = await ListServer.start();
    cleanups.push(() => server.close());
    const full = fs.readFileSync(path.join(LISTS_DIR, 'consolidated.xml'), 'utf8');
    const db = await durableDatabase();
    const { api } = await start(db, { LISTS_ENABLED: 'un_sc', LIST_URL_UN_SC: server.url('/un.xml') });
    let body = full;
    for (let i = 0; i <= LIST_SNAPSHOTS_KEPT_PER_LIST; i++) {
      server.serve('/un.xml', { body });
      const refreshed = await api.admin('POST', '/admin/v1/lists/un_sc/refresh');
      expect(refreshed.body.outcome).toBe('accepted');
      body = body.replace(/<ENTITY>[\s\S]*?<\/ENTITY>\s*/, '');
    }
    const rows = await api.runtime.ctx.db
      .selectFrom('list_snapshots as v')
      .leftJoin('list_snapshot_chunks as c', 'c.snapshot_id', 'v.id')
      .where('v.list_id', '=', 'un_sc')
      .groupBy(['v.id', 'v.entity_count'])
      .select(['v.entity_count', sql<number>`count(c.seq)`.as('chunks')])
      .orderBy('v.entity_count', 'desc')
      .execute();
    expect(rows.map((row) => [row.entity_count, Number(row.chunks) > 0])).toEqual([
      [UN_COUNT, false],
      [UN_COUNT - 1, true],
      [UN_COUNT - 2, true],
      [UN_COUNT - 3, true],
    ]);
    expect(api.runtime.ctx.lists.view().lists.get('un_sc')?.entities).toHaveLength(UN_COUNT - 3);
  });
});

describe.each(backends().filter((b) => b.databaseUrl !== undefined))(
  'official lists on several instances ($name)',
  (shared) => {
    it('one instance refreshes at a time and the other loads the version it stored', async () => {
      const isolated = await isolatedBackend(shared);
      const env = { LISTS_ENABLED: 'un_sc', LISTS_DIR, LISTS_REFRESH_INTERVAL_MINUTES: '0' };
      const a = await TestApp.start(isolated.backend, { env });
      const b = await TestApp.start(isolated.backend, { env });
      try {
        const [ra, rb] = await Promise.all([
          a.admin('POST', '/admin/v1/lists/un_sc/refresh'),
          b.admin('POST', '/admin/v1/lists/un_sc/refresh'),
        ]);
        const statuses = [ra.status, rb.status].sort();
        // Both ran one after the other, or the second found the lock taken (409); never both at once.
        if (statuses[1] === 409) expect(statuses).toEqual([200, 409]);
        else expect([ra.body.outcome, rb.body.outcome].sort()).toEqual(['accepted', 'unchanged']);
        await a.admin('POST', '/admin/v1/lists/un_sc/refresh');
        await b.admin('POST', '/admin/v1/lists/un_sc/refresh');
        const versionA = a.runtime.ctx.lists.view().lists.get('un_sc')?.meta.id;
        expect(versionA).toBeDefined();
        expect(b.runtime.ctx.lists.view().lists.get('un_sc')?.meta.id).toBe(versionA);
      } finally {
        await a.close();
        await b.close();
        await isolated.drop();
      }
    });

    it('a restart answers at once while the stored versions load; batches wait for them', async () => {
      const isolated = await isolatedBackend(shared);
      const env = { LISTS_ENABLED: 'un_sc', LISTS_DIR, LISTS_REFRESH_INTERVAL_MINUTES: '0' };
      const first = await TestApp.start(isolated.backend, { env });
      await first.close();
      // The stored versions cannot be read until the lock is released: the restart's load waits.
      const holder = await openDatabase({ databaseUrl: isolated.backend.databaseUrl, poolSize: 1 });
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const lockTaken = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holding = holder.db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE list_snapshot_chunks IN ACCESS EXCLUSIVE MODE`.execute(trx);
        locked();
        await released;
      });
      await lockTaken;
      const second = await TestApp.start(isolated.backend, { env, serveWhileListsLoad: true });
      try {
        // Health answers at once, and says the list is not in service yet.
        const health = await second.request('GET', '/v1/health');
        expect(health.body).toMatchObject({ database: 'up', sources: { un_sc: 'down' } });
        const { key } = await second.createAccount();
        const listed = { query: 'Saddam Hussein Al-Tikriti', type: 'person' };
        // Its only list is not loaded yet: no answer rather than a clean one, and it says why.
        const early = await second.request('POST', '/v1/screen', { key, body: listed });
        expect(early.status).toBe(500);
        expect(early.body).toMatchObject({
          type: '/problems/sources-failed',
          sources_failed: [{ source: 'un_sc', reason: 'unavailable' }],
        });

        // A batch taken meanwhile waits for the list: its item is not screened without it.
        const batch = await second.request('POST', '/v1/screen/batch', { key, body: { items: [listed] } });
        expect(batch.status).toBe(202);

        release();
        await holding;
        await second.runtime.ctx.lists.settled();
        const loaded = await second.request('POST', '/v1/screen', { key, body: listed });
        expect(loaded.body).toMatchObject({ sources_failed: [], complete: true });
        expect(loaded.body.sources_matched).toEqual(['un_sc']);
        await second.runtime.batchWork.settle();
        const done = await second.request('GET', `/v1/screen/batch/${batch.body.id}`, { key });
        expect(done.body).toMatchObject({ status: 'completed', failed: 0 });
        expect(done.body.results[0]).toMatchObject({
          status: 'completed',
          complete: true,
          sources_failed: [],
        });
        expect(done.body.results[0].flag_count).toBeGreaterThan(0);
      } finally {
        release();
        await holding.catch(() => undefined);
        await holder.close();
        await second.close();
        await isolated.drop();
      }
    });

    it('deployments in two schemas of one server refresh without waiting for each other', async () => {
      const [one, other] = await Promise.all([isolatedBackend(shared), isolatedBackend(shared)]);
      const databases = await Promise.all(
        [one, one, other].map((i) => openDatabase({ databaseUrl: i.backend.databaseUrl, poolSize: 2 })),
      );
      try {
        const [a, sameSchema, otherSchema] = databases.map((d) => new RefreshLock(d.db, 'postgres'));
        await a!.run(async () => {
          expect((await sameSchema!.run(async () => 'ran')).ran).toBe(false);
          expect(await otherSchema!.run(async () => 'ran')).toEqual({ ran: true, value: 'ran' });
        });
        expect((await sameSchema!.run(async () => 'ran')).ran).toBe(true);
      } finally {
        for (const database of databases) await database.close();
        await one.drop();
        await other.drop();
      }
    });
  },
);
