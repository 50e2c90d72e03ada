import { describe, expect, it } from 'vitest';
import { assignParties, partyOf } from '../../../src/screening/parties.js';
import type { Flag } from '../../../src/sources/flag.js';

function listFlag(source: string, id: string, score: number, details: Record<string, unknown> = {}): Flag {
  return { type: 'sanctions', source, list: 'X', match_score: score, details: { source_id: id, ...details } };
}

const parties = (...flags: Flag[]) => assignParties(flags).map(partyOf);

describe('parties of a screening', () => {
  it('joins flags of two lists that share an identifier, whatever their names score', () => {
    const passport = { identifiers: [{ type: 'passport', value: 'N 0123-4567' }] };
    const samePassport = { identifiers: [{ type: 'passport', value: 'n01234567' }] };
    expect(
      parties(listFlag('ofac_sdn', '1', 0.7, passport), listFlag('un_sc', '9', 0.6, samePassport)),
    ).toEqual(['ofac_sdn:1', 'ofac_sdn:1']);
  });

  it('does not join by contact details or by short identifier fragments', () => {
    const site = { identifiers: [{ type: 'website', value: 'www.example.gov' }] };
    expect(parties(listFlag('ofac_sdn', '1', 0.7, site), listFlag('un_sc', '9', 0.7, site))).toEqual([
      'ofac_sdn:1',
      'un_sc:9',
    ]);
    const short = { identifiers: [{ type: 'passport', value: '12' }] };
    expect(parties(listFlag('ofac_sdn', '1', 0.7, short), listFlag('un_sc', '9', 0.7, short))).toEqual([
      'ofac_sdn:1',
      'un_sc:9',
    ]);
  });

  it('joins an aggregator entry that confirms an official list with that list, when both match well', () => {
    const confirms = { confirms: ['un_sc'] };
    expect(parties(listFlag('un_sc', '9', 0.85), listFlag('opensanctions', 'Q1', 0.82, confirms))).toEqual([
      'un_sc:9',
      'un_sc:9',
    ]);
    expect(parties(listFlag('un_sc', '9', 0.85), listFlag('opensanctions', 'Q1', 0.7, confirms))).toEqual([
      'un_sc:9',
      'opensanctions:Q1',
    ]);
  });

  it('joins strong name matches unless birth dates, nationalities or kinds contradict', () => {
    const a = listFlag('ofac_sdn', '1', 0.95, {
      kind: 'person',
      birth_dates: ['1937-04-28'],
      nationalities: ['IQ'],
    });
    const agrees = listFlag('un_sc', '9', 0.92, {
      kind: 'person',
      birth_dates: ['1936/1938'],
      nationalities: ['IQ'],
    });
    expect(parties(a, agrees)).toEqual(['ofac_sdn:1', 'ofac_sdn:1']);
    const oneYearOff = listFlag('un_sc', '9', 0.92, { birth_dates: ['1938'] });
    expect(parties(a, oneYearOff)).toEqual(['ofac_sdn:1', 'ofac_sdn:1']);
    const bornLater = listFlag('un_sc', '9', 0.92, { birth_dates: ['1991-02-01'] });
    expect(parties(a, bornLater)).toEqual(['ofac_sdn:1', 'un_sc:9']);
    const otherCountry = listFlag('un_sc', '9', 0.92, { nationalities: ['BR'] });
    expect(parties(a, otherCountry)).toEqual(['ofac_sdn:1', 'un_sc:9']);
    const vessel = listFlag('un_sc', '9', 0.92, { kind: 'vessel' });
    expect(parties(a, vessel)).toEqual(['ofac_sdn:1', 'un_sc:9']);
  });

  it('joins good name matches that give one and the same full birth date', () => {
    const born = (date: string) => ({ kind: 'person', birth_dates: [date] });
    expect(
      parties(
        listFlag('ofac_sdn', '1', 1, born('1937-04-28')),
        listFlag('un_sc', '9', 0.83, born('1937-04-28')),
      ),
    ).toEqual(['ofac_sdn:1', 'ofac_sdn:1']);
    // The same year is not enough below the strong-match score.
    expect(
      parties(listFlag('ofac_sdn', '1', 1, born('1937')), listFlag('un_sc', '9', 0.83, born('1937'))),
    ).toEqual(['ofac_sdn:1', 'un_sc:9']);
  });

  it('does not join by name below the strong-match score', () => {
    expect(parties(listFlag('ofac_sdn', '1', 0.95), listFlag('un_sc', '9', 0.85))).toEqual([
      'ofac_sdn:1',
      'un_sc:9',
    ]);
  });

  it('joins transitively, keyed by the strongest flag, and leaves flags without a list record alone', () => {
    const id = { identifiers: [{ type: 'imo', value: '9187629' }] };
    const media: Flag = {
      type: 'adverse_media',
      source: 'gdelt',
      list: 'GDELT',
      match_score: 0.9,
      details: {},
    };
    expect(
      parties(
        listFlag('ofac_sdn', '1', 0.99),
        listFlag('un_sc', '9', 0.95, id),
        media,
        listFlag('eu_fsf', '5', 0.6, id),
      ),
    ).toEqual(['ofac_sdn:1', 'ofac_sdn:1', undefined, 'ofac_sdn:1']);
  });
});
