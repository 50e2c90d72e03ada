import { describe, expect, it } from 'vitest';
import { entityById, parseFromMirror } from './mirror.js';

describe('UK FCDO Sanctions List XML', () => {
  it('reads the 5 designations of the excerpt: entities, individuals and a ship', async () => {
    const uk = await parseFromMirror('uk_fcdo');
    expect(uk.counts.entities).toBe(5);
    expect(uk.counts.byKind).toMatchObject({ person: 2, organization: 2, vessel: 1 });
    // 10 <Name> elements and 2 non-Latin names.
    expect(uk.counts.names).toBe(12);
    expect(uk.listDate).toBe('2026-09-10');
    expect(uk.entities.every((e) => e.source === 'uk_fcdo' && e.list === 'UK_SANCTIONS_LIST')).toBe(true);
  });

  it('maps an individual: Name1..Name6, non-Latin name, DOBs with placeholders, passport, regime', async () => {
    const akhund = entityById(await parseFromMirror('uk_fcdo'), 'AFG0006');
    expect(akhund.names).toEqual([
      {
        full: 'MOHAMMAD HASSAN AKHUND',
        type: 'primary',
        parts: { given: 'MOHAMMAD', middle: 'HASSAN', family: 'AKHUND' },
      },
      { full: 'Mohammad Akhwand', type: 'aka', parts: { given: 'Mohammad', family: 'Akhwand' } },
      { full: 'محمد حسن آخوند', type: 'original_script', script: 'Arab' },
    ]);
    expect(akhund.birth_dates).toEqual(['1958-05-12', '1945', '1946']);
    expect(akhund.identifiers).toEqual([
      { type: 'passport', value: 'P04581926', label: 'Passport' },
      { type: 'national_id', value: '2132370', label: 'National Identifier' },
    ]);
    expect(akhund.programs).toEqual(['The Afghanistan (Sanctions) (EU Exit) Regulations 2020']);
    expect(akhund.listed_on).toBe('2001-01-25');
    expect(akhund.gender).toBe('male');
  });

  it('marks low-quality aliases weak and reads a ship with its IMO number', async () => {
    const uk = await parseFromMirror('uk_fcdo');
    expect(entityById(uk, 'BEL0107').names.map((n) => [n.full, n.type])).toEqual([
      ['BNK (UK) Ltd', 'primary'],
      ['BNK UK Limited', 'aka'],
      ['BNK', 'weak_aka'],
    ]);
    const ship = entityById(uk, 'DPR0075');
    expect(ship.kind).toBe('vessel');
    expect(ship.names.map((n) => n.full)).toEqual(['Petrel 8', 'Tian Tai 36']);
    expect(ship.identifiers).toEqual([{ type: 'imo', value: '9562233', label: 'IMONumber' }]);
    expect(ship.countries).toEqual(['KM']);
  });
});
