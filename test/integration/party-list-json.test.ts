import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkSlices } from '../../src/work-slices.js';
import { backends } from '../support/backends.js';
import { FIXTURE_LISTS_DIR } from '../support/real-lists.js';
import { TestApp } from '../support/test-app.js';

/**
 * Holds the first slice of checking that gives the event loop a turn until `release` is called:
 * what the test asks meanwhile can only be answered if the checking yields.
 */
function holdFirstPause() {
  const pause = WorkSlices.prototype.pause;
  let begun!: () => void;
  const checkingBegun = new Promise<void>((resolve) => {
    begun = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let first = true;
  WorkSlices.prototype.pause = async function (this: WorkSlices) {
    if (first) {
      first = false;
      begun();
      await released;
    }
    return pause.call(this);
  };
  return {
    checkingBegun,
    release,
    restore() {
      release();
      WorkSlices.prototype.pause = pause;
    },
  };
}

// Issue 45: a JSON list of parties was parsed and validated in one piece, holding the event loop
// for the whole of it, and a refusal could list every element of an item's array.
describe.each(backends())('JSON lists of parties are checked a slice at a time ($name)', (backend) => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start(backend, { env: { LISTS_DIR: FIXTURE_LISTS_DIR, LISTS_ENABLED: 'un_sc' } });
  }, 60_000);
  afterAll(async () => api?.close());

  it('answers other requests while a 100,000-item JSON import is checked, and lists its first 100 problems', async () => {
    const { key } = await api.createAccount('professional');
    const items = Array.from({ length: 100_000 }, () => ({ query: 'x', kind: 'person' }));
    const held = holdFirstPause();
    try {
      let importAnswered = false;
      const imported = api.request('POST', '/v1/monitors/import', { key, body: { items } }).then((answer) => {
        importAnswered = true;
        return answer;
      });
      await Promise.race([held.checkingBegun, imported]);
      expect(importAnswered).toBe(false);
      // The checking is held between two of its slices: health is answered all the same.
      for (let i = 0; i < 3; i++) expect((await api.request('GET', '/v1/health')).status).toBe(200);
      expect(importAnswered).toBe(false);
      held.release();
      const refused = await imported;
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({
        type: '/problems/validation-failed',
        detail: '100000 of the 100000 items are not valid; nothing was queued.',
        errors_omitted: 99_900,
      });
      expect(refused.body.errors).toHaveLength(100);
      expect(refused.body.errors[99]).toEqual({ pointer: '/items/99/kind', detail: 'is not a known field' });
    } finally {
      held.restore();
    }
    expect((await api.request('GET', '/v1/monitors', { key })).body.data).toEqual([]);
  }, 180_000);

  it('names each bad item of a JSON batch as a CSV refusal does, and stores none', async () => {
    const { key } = await api.createAccount('professional');
    const refused = await api.request('POST', '/v1/screen/batch', {
      key,
      body: {
        items: [
          { query: 'Good Name' },
          { query: 5 },
          { query: 'Bad\u0000Name' },
          { query: 'Also Good', type: 'ship' },
        ],
      },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toBe('3 of the 4 items are not valid; nothing was queued.');
    expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual([
      '/items/1/query',
      '/items/2/query',
      '/items/3/type',
    ]);
  });

  it('refuses more items than a batch holds before looking at any, and an oversized array as one problem', async () => {
    const { key } = await api.createAccount('professional');
    const tooMany = await api.request('POST', '/v1/screen/batch', {
      key,
      body: { items: Array.from({ length: 10_001 }, () => 1) },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toMatchObject({
      detail: 'A batch holds 1 to 10000 items.',
      errors: [{ pointer: '/items', detail: 'must hold 1 to 10000 items (got 10001)' }],
    });
    const countries = Array.from({ length: 1_000_000 }, () => 'XXX');
    const oversized = await api.request('POST', '/v1/monitors/import', {
      key,
      body: { items: [{ query: 'Some Name', countries }] },
    });
    expect(oversized.status).toBe(422);
    expect(oversized.body.errors).toEqual([
      { pointer: '/items/0/countries', detail: 'must NOT have more than 10 items' },
    ]);
    expect(oversized.body.errors_omitted).toBeUndefined();
  }, 120_000);

  it('refuses a body that is not a list of parties as the schema says', async () => {
    const { key } = await api.createAccount('professional');
    for (const [body, pointer] of [
      ['"query\\nx"', '/'],
      ['{"items": {}}', '/items'],
      ['{"items": [{"query": "A Name"}], "option": {}}', '/option'],
      ['{"items": [{"query": "A Name"}], "options": {"threshold": 2}}', '/options/threshold'],
    ] as const) {
      const refused = await api.request('POST', '/v1/screen/batch', {
        key,
        rawBody: body,
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status, body).toBe(422);
      expect(refused.body.detail, body).toBe('The request body does not match the schema.');
      expect(refused.body.errors[0].pointer, body).toBe(pointer);
    }
  });
});
