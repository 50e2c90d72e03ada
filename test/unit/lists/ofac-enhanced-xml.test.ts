import { describe, expect, it } from 'vitest';
import { describeWithRealLists } from '../../support/real-lists.js';
import { entityById, parseFromMirror, recordsWithImo } from './mirror.js';

describeWithRealLists('OFAC Enhanced XML (CONS_ENHANCED.ZIP): the whole list', (listsDir) => {
  it('reads the 443 entities from inside the zip, dated by dataAsOf', async () => {
    const cons = await parseFromMirror('ofac_cons', 'ofac_enhanced_xml', undefined, listsDir);
    expect(cons.counts.entities).toBe(443);
    expect(cons.counts.byKind).toMatchObject({ person: 80, organization: 363 });
    // Independent python count: distinct translations per entity, 45 of them non-Latin.
    expect(cons.counts.names).toBe(1623);
    expect(
      cons.entities.reduce((n, e) => n + e.names.filter((x) => x.type === 'original_script').length, 0),
    ).toBe(45);
    expect(cons.listDate).toBe('2025-01-10');
    // No IMO number anywhere in the file (grep), as in the legacy CSV.
    expect(recordsWithImo(cons)).toEqual({});
  });
});

describe('OFAC Enhanced XML (CONS_ENHANCED.ZIP)', () => {
  it('reads the entities of the excerpt from inside the zip, dated by dataAsOf', async () => {
    const cons = await parseFromMirror('ofac_cons', 'ofac_enhanced_xml');
    expect(cons.counts.entities).toBe(22);
    expect(cons.counts.byKind).toMatchObject({ person: 20, organization: 2 });
    // The same entries as the excerpt's legacy CSV, with VTB's two names in Cyrillic besides.
    expect(cons.counts.names).toBe(76);
    expect(
      cons.entities.reduce((n, e) => n + e.names.filter((x) => x.type === 'original_script').length, 0),
    ).toBe(2);
    expect(cons.listDate).toBe('2025-01-10');
  });

  it('maps names with translations, identity documents and the listing date', async () => {
    const cons = await parseFromMirror('ofac_cons', 'ofac_enhanced_xml');
    const vtb = entityById(cons, '17013');
    expect(vtb.names[0]).toEqual({ full: 'VTB BANK PUBLIC JOINT STOCK COMPANY', type: 'primary' });
    expect(vtb.names[1]).toEqual({
      full: 'БАНК ВТБ ПУБЛИЧНОЕ АКЦИОНЕРНОЕ ОБЩЕСТВО',
      type: 'original_script',
      script: 'Cyrl',
    });
    expect(vtb.identifiers).toContainEqual({
      type: 'registration_number',
      value: '1027739609391',
      label: 'Registration ID',
      country: 'RU',
    });
    const haniya = entityById(cons, '9639');
    expect(haniya.names.map((n) => n.full)).toEqual([
      'Ismail Abdul Salah HANIYA',
      'Ismail HANIYA',
      'Ismaeel HANIYYA',
    ]);
    expect(haniya.birth_dates).toEqual(['1962']);
    expect(haniya.places_of_birth).toEqual(['Shati']);
    expect(haniya.listed_on).toBe('2006-04-12');
    expect(haniya.programs).toEqual(['NS-PLC']);
  });
});
