import { beforeAll, describe, expect, it } from 'vitest';
import type { ListParseResult } from '../../../src/sources/lists/parsers/types.js';
import { describeWithRealLists } from '../../support/real-lists.js';
import { entityById, namesOfType, parseFromMirror, recordsWithImo } from './mirror.js';

describeWithRealLists('UN Security Council consolidated XML: the whole list', (listsDir) => {
  let un: ListParseResult;
  beforeAll(async () => {
    un = await parseFromMirror('un_sc', undefined, undefined, listsDir);
  });

  it('reads the 730 individuals and 273 entities the data README states, dated by dateGenerated', () => {
    expect(un.counts.entities).toBe(1003);
    expect(un.counts.byKind).toMatchObject({ person: 730, organization: 273 });
    expect(un.listDate).toBe('2026-02-27');
    expect(un.entities.every((e) => e.source === 'un_sc' && e.list === 'UN_CONSOLIDATED')).toBe(true);
  });

  it('keeps aliases by quality: Good as aka, Low as weak_aka, plus names in original script', () => {
    // Independent python count, names compared case-insensitively per record: 1,003 primaries,
    // 2,736 of the 2,752 non-empty aliases (16 repeat a name of their record) and 377
    // original-script names.
    expect(un.counts.names).toBe(4116);
    expect(namesOfType(un, 'weak_aka')).toBe(615);
    expect(namesOfType(un, 'original_script')).toBe(377);
  });

  it('reads the IMO company numbers its comments state, in every form they are written', () => {
    // grep: 16 ENTITY comments state their number ("IMO number: 5571322.", "IMO Number: 5342883.",
    // "International Maritime Organization (IMO) Number: 1790183.", "Company Number IMO
    // 5434358."); none was read before.
    expect(recordsWithImo(un)).toEqual({ organization: 16 });
    const imoOf = (id: string) => entityById(un, id).identifiers.filter((i) => i.type === 'imo');
    // KPe.022, Chongchongang Shipping Company: "IMO Number: 5342883. The Chongchongang ...".
    expect(imoOf('6908516')).toEqual([{ type: 'imo', value: '5342883', label: 'COMMENTS1' }]);
    // KPe.020, Ocean Maritime Management: its comments also list the ships it manages, with their
    // IMO numbers; those are not its own.
    expect(imoOf('6908046').map((i) => i.value)).toEqual(['1790183']);
  });
});

describe('UN Security Council consolidated XML', () => {
  let un: ListParseResult;
  beforeAll(async () => {
    un = await parseFromMirror('un_sc');
  });

  it('reads the individuals and entities of the excerpt, dated by dateGenerated', () => {
    expect(un.counts.entities).toBe(59);
    expect(un.counts.byKind).toMatchObject({ person: 45, organization: 14 });
    expect(un.listDate).toBe('2026-02-27');
    expect(un.entities.every((e) => e.source === 'un_sc' && e.list === 'UN_CONSOLIDATED')).toBe(true);
    // Independent python count, names compared case-insensitively per record: 233, of which 5
    // in original script.
    expect(un.counts.names).toBe(233);
    expect(namesOfType(un, 'original_script')).toBe(5);
  });

  it('maps an individual: FIRST..THIRD_NAME, aliases, year range DOB, program, nationality', () => {
    const haqqani = entityById(un, '2785696');
    expect(haqqani.names[0]).toEqual({
      full: 'SIRAJUDDIN JALLALOUDINE HAQQANI',
      type: 'primary',
      parts: { given: 'SIRAJUDDIN', middle: 'JALLALOUDINE', family: 'HAQQANI' },
    });
    expect(haqqani.names).toContainEqual({ full: 'Khalifa', type: 'weak_aka' });
    expect(haqqani.names).toContainEqual({ full: 'Siraj Haqqani', type: 'aka' });
    expect(haqqani.names.at(-1)).toEqual({
      full: 'سراج الدين جلال الدين حقانى',
      type: 'original_script',
      script: 'Arab',
    });
    expect(haqqani.birth_dates).toEqual(['1977/1978']);
    expect(haqqani.programs).toEqual(['Taliban']);
    expect(haqqani.nationalities).toEqual(['AF']);
    expect(haqqani.listed_on).toBe('2007-09-13');
    expect(haqqani.addresses[0]).toEqual({
      full: 'Kela neighborhood/Danda neighborhood, Miramshah, North Waziristan, Pakistan',
      city: 'Kela neighborhood/Danda neighborhood, Miramshah',
      country: 'PK',
    });
    expect(haqqani.raw).toMatchObject({ REFERENCE_NUMBER: 'TAi.144', UN_LIST_TYPE: 'Taliban' });
  });

  it('reads documents and exact birth years', () => {
    const nashwan = entityById(un, '111900');
    expect(nashwan.birth_dates).toEqual(['1961']);
    expect(nashwan.gender).toBe('male');
    expect(nashwan.identifiers).toEqual([
      { type: 'national_id', value: '0094195', label: 'National Identification Number' },
    ]);
    expect(nashwan.places_of_birth).toEqual(['Mosul, Iraq']);
  });

  it('maps an entity with its a.k.a. names', () => {
    const adf = entityById(un, '6908402');
    expect(adf.kind).toBe('organization');
    expect(adf.names[0]).toEqual({ full: 'ADF', type: 'primary' });
    expect(adf.programs).toEqual(['DRC']);
    expect(adf.remarks).toMatch(/^ADF founder and leader, Jamil Mukulu/);
  });
});
