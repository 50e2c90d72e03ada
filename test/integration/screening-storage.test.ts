import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../support/backends.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

describe.each(backends())('screening storage ($name)', (backend) => {
  let api: TestApp;

  beforeAll(async () => {
    api = await TestApp.start(backend, { env: { LISTS_DIR, LISTS_ENABLED: 'un_sc' } });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('compresses stored results with LZ4 where the server has it (pglz otherwise) and reads them back unchanged', async () => {
    const { key } = await api.createAccount('enterprise');
    // A common name: flags from many listed people, a result well above the 2 KB TOAST threshold.
    const screened = await api.request('POST', '/v1/screen', {
      key,
      body: { query: 'Mohammed', type: 'person' },
    });
    expect(screened.status).toBe(200);
    const { db } = api.runtime.ctx;
    const { rows } = await sql<{ method: string | null; bytes: number; lz4: boolean }>`
      SELECT pg_column_compression(result) AS method, octet_length(result::text) AS bytes,
        (SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression') AS lz4
      FROM screenings WHERE id = ${screened.body.id}`.execute(db);
    const stored = rows[0]!;
    expect(stored.bytes).toBeGreaterThan(4096);
    expect(stored.method).toBe(stored.lz4 ? 'lz4' : 'pglz');
    const read = await api.request('GET', `/v1/screen/${screened.body.id}`, { key });
    expect(read.body).toEqual({ ...screened.body, duration_ms: read.body.duration_ms });
  });

  it('stores text with lone surrogates as U+FFFD, as any UTF-8 encoder does, losing no character after them', async () => {
    // JSON escapes can carry lone surrogates, which UTF-8 cannot; the embedded driver used to
    // miscount such a value's length and cut its last characters.
    const { key } = await api.createAccount('enterprise');
    const name = '\u0080\udfffa key \ud800';
    const created = await api.request('POST', '/v1/keys', { key, body: { name } });
    expect(created.status).toBe(201);
    expect(created.body.name).toBe('\u0080\ufffda key \ufffd');
    const listed = await api.request('GET', '/v1/keys', { key });
    expect(listed.body.data.map((k: { name: string }) => k.name)).toContain('\u0080\ufffda key \ufffd');

    const screened = await api.request('POST', '/v1/screen', {
      key,
      body: { query: 'Ab\udfffcd Ef', type: 'person' },
    });
    expect(screened.status).toBe(200);
    expect(screened.body.entity).toBe('ab\ufffdcd ef');
    const read = await api.request('GET', `/v1/screen/${screened.body.id}`, { key });
    expect(read.body.entity).toBe('ab\ufffdcd ef');
  });
});
