import { beforeAll, describe, expect, it } from 'vitest';
import type { ListParseResult } from '../../../src/sources/lists/parsers/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';
import { entityById, parseFromMirror, recordsWithImo } from './mirror.js';

describeWithRealLists('US Consolidated Screening List CSV: the whole list', (listsDir) => {
  let csl: ListParseResult;
  beforeAll(async () => {
    csl = await parseFromMirror('us_csl', undefined, undefined, listsDir);
  });

  it('skips its 10,026 SDN rows by default so OFAC listings are not counted twice', () => {
    expect(csl.counts.records).toBe(14_160);
    expect(csl.counts.skipped).toBe(10_026);
    // 4,134 non-SDN rows; one (list, _id) pair appears twice and is kept once.
    expect(csl.counts.entities).toBe(4133);
    expect(csl.entities.some((e) => e.list === 'SDN')).toBe(false);
    // Only the SDN rows state IMO numbers (grep): none is left.
    expect(recordsWithImo(csl)).toEqual({});
    // Independent python count of distinct names per kept row.
    expect(csl.counts.names).toBe(7826);
  });

  it('normalises the source column into upper snake case list names', () => {
    const perList = new Map<string, number>();
    for (const e of csl.entities) perList.set(e.list, (perList.get(e.list) ?? 0) + 1);
    expect(perList.get('ENTITY_LIST')).toBe(2001);
    expect(perList.get('ITAR_DEBARRED')).toBe(727);
    expect(perList.get('DENIED_PERSONS')).toBe(462);
    expect([...perList.keys()].every((list) => /^[A-Z][A-Z0-9_]*$/.test(list))).toBe(true);
    expect(perList.size).toBe(12);
  });

  it('keeps all 14,159 rows, SDN ones included, when ofac_sdn is not enabled', async () => {
    const all = await parseFromMirror('us_csl', undefined, { skipLists: [] }, listsDir);
    expect(all.counts.skipped).toBe(0);
    expect(all.counts.entities).toBe(14_159);
    // Its SDN rows repeat OFAC's IMO numbers in `ids` ("IMO 5342883, Identification Number"): 514
    // rows by python, 83 of them companies' numbers. Before: 440 (431 ships, 9 companies), with
    // the "IMO " prefix kept in the value.
    expect(recordsWithImo(all)).toEqual({ vessel: 431, organization: 83 });
    expect(entityById(all, 'SDN-17067').identifiers).toContainEqual({
      type: 'imo',
      value: '5342883',
      label: 'Identification Number',
    });
  });
});

describe('US Consolidated Screening List CSV', () => {
  let csl: ListParseResult;
  beforeAll(async () => {
    csl = await parseFromMirror('us_csl');
  });

  it('skips the SDN rows of the excerpt by default, and keeps one row of a repeated (list, _id) pair', () => {
    // Counted with python: 75 rows, 6 of them SDN, and one Capta List _id on two rows.
    expect(csl.counts.records).toBe(75);
    expect(csl.counts.skipped).toBe(6);
    expect(csl.counts.entities).toBe(68);
    expect(csl.entities.some((e) => e.list === 'SDN')).toBe(false);
  });

  it('normalises the source column of each of the excerpt’s lists into upper snake case', () => {
    const lists = new Set(csl.entities.map((e) => e.list));
    expect([...lists].every((list) => /^[A-Z][A-Z0-9_]*$/.test(list))).toBe(true);
    expect(lists).toContain('ENTITY_LIST');
    expect(lists).toContain('ITAR_DEBARRED');
    expect(lists).toContain('DENIED_PERSONS');
    expect(lists.size).toBe(12);
  });

  it('maps an Entity List row with its aliases and address', () => {
    const plant = entityById(csl, 'ENTITY_LIST-4398d33e9e93c7477af39f1e0bfffc13ddd47bcc');
    expect(plant.names.map((n) => [n.full, n.type])).toEqual([
      ['140 Repair Plant JSC', 'primary'],
      ['Open Joint Stock Company 140 Repair Plant', 'aka'],
      ['JSC 140 Repair Plant', 'aka'],
    ]);
    expect(plant.addresses).toEqual([
      { full: '19 Luysi Chalovskoy St., Borisov, 222512, BY', country: 'BY' },
    ]);
    expect(plant.listed_on).toBe('2022-04-07');
    // The Entity List states no type: a name with a legal form is an organisation's.
    expect(plant.kind).toBe('organization');
    expect(plant.raw).toMatchObject({ source: 'Entity List (EL) - Bureau of Industry and Security' });
  });

  it('leaves rows of no stated type and no legal form in their name of unknown kind', () => {
    const untyped = (name: string) => csl.entities.find((e) => e.names[0]?.full === name)!;
    expect(untyped('ABDIEL PADRON MADRID').kind).toBe('unknown');
    expect(untyped('27th Scientific Center').kind).toBe('unknown');
    expect(untyped('ARI International, Ltd.').kind).toBe('organization');
  });

  it('keeps SDN rows when ofac_sdn is not enabled, reading their ids and birth dates', async () => {
    const all = await parseFromMirror('us_csl', undefined, { skipLists: [] });
    expect(all.counts.skipped).toBe(0);
    expect(all.counts.entities).toBe(74);
    const sdnRow = entityById(all, 'SDN-9935');
    expect(sdnRow.kind).toBe('person');
    expect(sdnRow.names[0]?.full).toBe("Abu Sufian al-Salamabi Muhammed Ahmed 'ABD AL-RAZZIQ");
    expect(sdnRow.birth_dates).toEqual(['1962-08-06']);
    expect(sdnRow.nationalities).toEqual(['CA', 'SD']);
    expect(sdnRow.identifiers).toEqual([
      { type: 'passport', value: 'BC166787', label: 'Passport', country: 'CA' },
    ]);
  });
});
