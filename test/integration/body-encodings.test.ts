import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, backends } from '../support/backends.js';
import { isolatedBackend } from '../support/isolated-database.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { type ApiResponse, TestApp } from '../support/test-app.js';

const LISTS_DIR = FIXTURE_LISTS_DIR;

// Request bodies are bytes: they are read in the charset their Content-Type declares (UTF-8 when
// none is), strictly. What cannot be read is refused before anything is screened or counted.
describe.each(backends())('request body encodings ($name)', (shared) => {
  let backend: Backend;
  let drop: () => Promise<void>;
  let api: TestApp;

  beforeAll(async () => {
    ({ backend, drop } = await isolatedBackend(shared));
    api = await TestApp.start(backend, { env: { LISTS_DIR, LISTS_ENABLED: 'un_sc' } });
    await api.runtime.ctx.lists.settled();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await drop?.();
  });

  const send = (key: string, url: string, contentType: string, bytes: Buffer) =>
    api.request('POST', url, { key, rawBody: bytes, headers: { 'content-type': contentType } });
  const usageCount = async (key: string) =>
    (await api.request('GET', '/v1/usage', { key })).body.current_month.count as number;
  const expectProblem = (response: ApiResponse, status: number, type: string) => {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
    expect(response.body.type).toBe(`/problems/${type}`);
  };
  /** The normalised name (`entity`) each item of a batch was screened as, in order. */
  const batchEntities = async (key: string, batchId: string) => {
    await api.runtime.batchWork.settle();
    const batch = await api.request('GET', `/v1/screen/batch/${batchId}`, { key });
    return Promise.all(
      batch.body.results.map(
        async (r: { screening_id: string }) =>
          (await api.request('GET', `/v1/screen/${r.screening_id}`, { key })).body.entity,
      ),
    );
  };

  it('refuses a JSON body with bytes that are not UTF-8 with a 400 problem, and counts nothing', async () => {
    const { key } = await api.createAccount('professional');
    const bodies = [
      Buffer.concat([Buffer.from('{"query":"ab'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      // Müller in ISO-8859-1, sent without saying so.
      Buffer.from('{"query":"Hans M\u00fcller"}', 'latin1'),
      // A sequence cut short, and an overlong encoding of "/".
      Buffer.concat([Buffer.from('{"query":"Hans '), Buffer.from([0xc3]), Buffer.from('"}')]),
      Buffer.concat([Buffer.from('{"query":"a'), Buffer.from([0xc0, 0xaf]), Buffer.from('b"}')]),
    ];
    for (const body of bodies) {
      const response = await send(key, '/v1/screen', 'application/json', body);
      expectProblem(response, 400, 'malformed-request');
      expect(response.body.detail).toContain('not valid utf-8');
    }
    expect(await usageCount(key)).toBe(0);
  });

  it('refuses a CSV batch with bytes that are not UTF-8 when no charset is declared, and queues nothing', async () => {
    const { key } = await api.createAccount('professional');
    const csv = Buffer.from('query\r\nHans M\u00fcller\r\n', 'latin1');
    expectProblem(await send(key, '/v1/screen/batch', 'text/csv', csv), 400, 'malformed-request');
    expect(await usageCount(key)).toBe(0);
  });

  it('reads a CSV batch in the ISO-8859-1 or windows-1252 it declares', async () => {
    const { key } = await api.createAccount('professional');
    const csv = Buffer.from('query\r\nHans M\u00fcller\r\nJos\u00e9 Ni\u00f1o\r\n', 'latin1');
    for (const contentType of ['text/csv; charset=iso-8859-1', 'text/csv; charset="Windows-1252"']) {
      const queued = await send(key, '/v1/screen/batch', contentType, csv);
      expect(queued.status, JSON.stringify(queued.body)).toBe(202);
      expect(await batchEntities(key, queued.body.id)).toEqual(['hans müller', 'josé niño']);
    }
  });

  it('reads JSON in the windows-1252 it declares, and UTF-8 after a byte order mark', async () => {
    const { key } = await api.createAccount('professional');
    const latin = await send(
      key,
      '/v1/screen',
      'application/json; charset=windows-1252',
      Buffer.from('{"query":"Hans M\u00fcller"}', 'latin1'),
    );
    expect(latin.status, JSON.stringify(latin.body)).toBe(200);
    expect(latin.body.entity).toBe('hans müller');
    const withBom = await send(
      key,
      '/v1/screen',
      'application/json; charset=utf-8',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"query":"Erika M\u00fcller"}', 'utf8')]),
    );
    expect(withBom.status, JSON.stringify(withBom.body)).toBe(200);
    expect(withBom.body.entity).toBe('erika müller');
  });

  it('refuses with 415 a charset it does not read, UTF-16 included, and counts and queues nothing', async () => {
    const { key, account } = await api.createAccount('professional');
    const shiftJis = await send(
      key,
      '/v1/screen/batch',
      'text/csv; charset=shift_jis',
      Buffer.from('query\r\nHans Muller\r\n', 'latin1'),
    );
    expectProblem(shiftJis, 415, 'unsupported-media-type');
    expect(shiftJis.body.detail).toContain('shift_jis');
    const utf16 = await send(
      key,
      '/v1/screen',
      'application/json; charset=utf-16',
      Buffer.from('\ufeff{"query":"Hans M\u00fcller"}', 'utf16le'),
    );
    expectProblem(utf16, 415, 'unsupported-media-type');
    const ebcdic = await send(
      key,
      '/v1/screen',
      'application/json; charset=ebcdic-cp-us',
      Buffer.from('{"query":"Hans"}'),
    );
    expectProblem(ebcdic, 415, 'unsupported-media-type');
    expect(await usageCount(key)).toBe(0);
    const batches = await api.runtime.ctx.db
      .selectFrom('batches')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', account.id)
      .executeTakeFirst();
    expect(Number(batches?.n)).toBe(0);
  });
});
