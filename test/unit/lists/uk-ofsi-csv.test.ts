import { beforeAll, describe, expect, it } from 'vitest';
import type { ListParseResult } from '../../../src/sources/lists/parsers/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';
import { entityById, parseFromMirror, recordsWithImo } from './mirror.js';

describeWithRealLists('UK OFSI consolidated CSV: the whole list', (listsDir) => {
  let ofsi: ListParseResult;
  beforeAll(async () => {
    ofsi = await parseFromMirror('uk_ofsi', undefined, undefined, listsDir);
  });

  it('groups the 18,798 name rows into the 4,688 targets the data README states', () => {
    expect(ofsi.counts.records).toBe(18_798);
    expect(ofsi.counts.entities).toBe(4688);
    expect(ofsi.counts.byKind).toMatchObject({ person: 3663, organization: 1010, vessel: 15 });
    expect(new Set(ofsi.entities.flatMap((e) => e.programs)).size).toBe(31);
    expect(ofsi.listDate).toBe('2025-04-14');
  });

  it('keeps each distinct name variant once, the Primary name first', () => {
    // Independent python count of distinct names (Latin and non-Latin) per Group ID: 15,957.
    expect(ofsi.counts.names).toBe(15_957);
    expect(ofsi.entities.every((e) => e.names[0]?.type === 'primary')).toBe(true);
  });

  it('reads the IMO numbers its Other Information states, of ships and of shipping companies', () => {
    // Independent python count: 29 Group IDs state one ("(IMO number):7408873" for the 15 ships,
    // "IMO number: 5571322." or "International Maritime Organization (IMO) Number: 1790183." for
    // 14 companies); none was read before.
    expect(recordsWithImo(ofsi)).toEqual({ vessel: 15, organization: 14 });
    expect(entityById(ofsi, '13340').identifiers).toContainEqual({
      type: 'imo',
      value: '5342883',
      label: 'Other Information',
    });
  });
});

describe('UK OFSI consolidated CSV', () => {
  let ofsi: ListParseResult;
  beforeAll(async () => {
    ofsi = await parseFromMirror('uk_ofsi');
  });

  it('groups the name rows of the excerpt into its targets, after the two preamble rows', () => {
    // Counted independently with python: 459 rows, 43 Group IDs, 296 distinct names per group.
    expect(ofsi.counts.records).toBe(459);
    expect(ofsi.counts.entities).toBe(43);
    expect(ofsi.listDate).toBe('2025-04-14');
  });

  it('keeps each distinct name variant once, the Primary name first', () => {
    expect(ofsi.counts.names).toBe(296);
    expect(ofsi.entities.every((e) => e.names[0]?.type === 'primary')).toBe(true);
    const haq = entityById(ofsi, '15672');
    expect(haq.names.map((n) => [n.full, n.type])).toEqual([
      ['Mian Abdul HAQ', 'primary'],
      ['Mian MITHOO', 'aka'],
      ['Mian MITHU', 'aka'],
      ['Mian MITTO', 'aka'],
      ['Mian MITTU', 'aka'],
    ]);
    expect(haq.programs).toEqual(['Global Human Rights']);
    expect(haq.gender).toBe('male');
    expect(haq.listed_on).toBe('2022-12-09');
  });

  it('reads enumerated passports, non-Latin names, DOB and nationality of a target', () => {
    const saidJan = entityById(ofsi, '11634');
    expect(saidJan.names).toContainEqual({
      full: 'سعید جان عبد السلام',
      type: 'original_script',
      script: 'Arab',
    });
    expect(saidJan.identifiers).toEqual(
      expect.arrayContaining([
        { type: 'passport', value: 'OR801168', label: 'Passport' },
        { type: 'passport', value: '4117921', label: 'Passport' },
        { type: 'national_id', value: '281020505755', label: 'National Identification Number' },
      ]),
    );
    expect(saidJan.birth_dates).toContain('1981-02-05');
    expect(saidJan.nationalities).toContain('AF');
    expect(entityById(ofsi, '13651')).toMatchObject({
      kind: 'vessel',
      identifiers: [{ type: 'imo', value: '7408873', label: 'Other Information' }],
    });
  });
});
