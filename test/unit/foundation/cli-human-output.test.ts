import { describe, expect, it } from 'vitest';
import { renderHuman } from '../../../src/cli/human-output.js';

describe("the operator CLI's output for people", () => {
  it('prints a paged answer as a table with its cursor, hashes and times shortened', () => {
    const text = renderHuman({
      data: [
        { id: 'ofac_sdn', state: 'fresh', version: 'a'.repeat(64), fetched_at: '2026-12-02T04:38:12.123Z' },
        { id: 'un_sc', state: 'stale', version: null, fetched_at: null },
      ],
      next_cursor: 'abc',
    });
    expect(text.split('\n')).toEqual([
      'ID        STATE  VERSION       FETCHED AT',
      'ofac_sdn  fresh  aaaaaaaaaaaa  2026-12-02 04:38',
      'un_sc     stale  -             -',
      'next_cursor  abc',
    ]);
  });

  it('shows only the columns asked for, in their order', () => {
    const text = renderHuman({ data: [{ id: 'un_sc', state: 'stale', title: 'UN', entity_count: 1003 }] }, [
      'id',
      'entity_count',
    ]);
    expect(text.split('\n')).toEqual(['ID     ENTITY COUNT', 'un_sc  1,003']);
  });

  it('prints a record as its fields, a nested record indented, a secret whole', () => {
    const key = `cs_live_${'x'.repeat(60)}`;
    expect(renderHuman({ account: { name: 'Acme', plan: 'starter' }, key: { key } }).split('\n')).toEqual([
      'account:',
      '  name  Acme',
      '  plan  starter',
      'key:',
      `  key  ${key}`,
    ]);
  });
});
