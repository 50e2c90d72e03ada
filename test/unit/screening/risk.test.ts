import { describe, expect, it } from 'vitest';
import { assignParties } from '../../../src/screening/parties.js';
import { assessRisk, authorityOf, matchStrength, riskLevel } from '../../../src/screening/risk.js';
import type { Flag } from '../../../src/sources/flag.js';

/** A flag of a list record; flags of one `party` share an identifier, so they are one listed party. */
function flag(
  type: Flag['type'],
  source: string,
  match_score: number,
  party?: string,
  details: Record<string, unknown> = {},
): Flag {
  const identifiers = party ? [{ type: 'passport', value: `P-${party}-0001` }] : [];
  return {
    type,
    source,
    list: 'X',
    match_score,
    details: { source_id: `${source}-${party ?? 'own'}`, identifiers, ...details },
  };
}

const risk = (...flags: Flag[]) => assessRisk(assignParties(flags));

describe('risk score', () => {
  it('is zero and low without flags', () => {
    expect(assessRisk([])).toEqual({ risk_score: 0, risk_level: 'low' });
  });

  it('maps a match score to its strength through the calibration knots', () => {
    expect(matchStrength(1)).toBe(1);
    expect(matchStrength(0.8)).toBeCloseTo(5 / 6, 10);
    expect(matchStrength(0.6)).toBeCloseTo(5 / 12, 10);
    expect(matchStrength(0.5)).toBeCloseTo(0.25, 10);
    expect(matchStrength(0)).toBe(0);
    expect(matchStrength(0.7)).toBeCloseTo(0.625, 10);
  });

  // The worked examples of docs/risk.md.
  it('keeps an exact or near-exact sanctions match high', () => {
    expect(risk(flag('sanctions', 'ofac_sdn', 1))).toEqual({ risk_score: 60, risk_level: 'high' });
    expect(risk(flag('sanctions', 'ofac_sdn', 0.95))).toEqual({ risk_score: 57, risk_level: 'high' });
    expect(risk(flag('sanctions', 'un_sc', 0.9))).toEqual({ risk_score: 55, risk_level: 'high' });
    expect(risk(flag('sanctions', 'un_sc', 0.8))).toEqual({ risk_score: 50, risk_level: 'high' });
  });

  it("puts a common name's partial match in medium at most", () => {
    // "John Smith" against "JOHN B. PRIDMORE-SMITH": both words, and an extra listed word.
    expect(risk(flag('sanctions', 'us_csl', 0.748))).toEqual({ risk_score: 44, risk_level: 'medium' });
    expect(risk(flag('sanctions', 'ofac_sdn', 0.79))).toEqual({ risk_score: 49, risk_level: 'medium' });
    expect(risk(flag('sanctions', 'ofac_sdn', 0.6))).toEqual({ risk_score: 25, risk_level: 'medium' });
    expect(risk(flag('sanctions', 'ofac_sdn', 0.55))).toEqual({ risk_score: 20, risk_level: 'low' });
  });

  it('scales the points of a type by its strongest flag', () => {
    expect(risk(flag('sanctions', 'ofac_sdn', 0.85), flag('sanctions', 'ofac_sdn', 0.6)).risk_score).toBe(53);
    expect(risk(flag('pep', 'opensanctions', 1))).toEqual({ risk_score: 40, risk_level: 'medium' });
    expect(risk(flag('adverse_media', 'gdelt', 0.7))).toEqual({ risk_score: 12, risk_level: 'low' });
  });

  it('adds 10 when one party is named by two independent authorities', () => {
    expect(risk(flag('sanctions', 'ofac_sdn', 1, 'a'), flag('sanctions', 'eu_fsf', 1, 'a')).risk_score).toBe(
      70,
    );
    // sanctions 60 + pep 40 * strength(0.9) + bonus 10 = 106.7 -> capped at 100
    expect(risk(flag('sanctions', 'un_sc', 1, 'a'), flag('pep', 'opensanctions', 0.9, 'a'))).toEqual({
      risk_score: 100,
      risk_level: 'critical',
    });
  });

  it('gives no bonus for two authorities naming two different parties', () => {
    // Strong name matches on both, but born decades apart.
    const born = (year: string) => ({ birth_dates: [year] });
    expect(
      risk(
        flag('sanctions', 'ofac_sdn', 1, 'a', born('1958')),
        flag('sanctions', 'eu_fsf', 1, 'b', born('1991')),
      ).risk_score,
    ).toBe(60);
    // Without anything that joins them (a weak name match on each), they are not one party either.
    expect(risk(flag('sanctions', 'ofac_sdn', 0.85), flag('sanctions', 'un_sc', 0.7)).risk_score).toBe(53);
  });

  it('gives no bonus for another, weaker match that two authorities name', async () => {
    // The strongest match is on one list only; a relative matched at 0.75 is on two.
    const flags = [
      flag('sanctions', 'ofac_sdn', 1, 'a'),
      flag('sanctions', 'ofac_sdn', 0.75, 'b'),
      flag('sanctions', 'un_sc', 0.72, 'b'),
    ];
    expect(risk(...flags).risk_score).toBe(60);
  });

  it('counts OFAC SDN and non-SDN as one authority, and UK FCDO and OFSI as one', () => {
    expect(
      risk(flag('sanctions', 'ofac_sdn', 1, 'a'), flag('sanctions', 'ofac_cons', 1, 'a')).risk_score,
    ).toBe(60);
    expect(risk(flag('sanctions', 'uk_fcdo', 1, 'a'), flag('sanctions', 'uk_ofsi', 1, 'a')).risk_score).toBe(
      60,
    );
  });

  it("treats the CSL's copies of OFAC lists as OFAC and its other lists as independent", () => {
    expect(authorityOf({ source: 'us_csl', list: 'SECTORAL_SANCTIONS' })).toBe('us_ofac');
    expect(authorityOf({ source: 'us_csl', list: 'ENTITY_LIST' })).toBe('us_csl');
  });

  it('keeps a record of another kind than the query at medium at least, whatever its points', () => {
    const mismatched = { kind_mismatch: true };
    expect(risk(flag('watchlist', 'opensanctions', 0.64, undefined, mismatched))).toEqual({
      risk_score: 25,
      risk_level: 'medium',
    });
    expect(risk(flag('watchlist', 'opensanctions', 0.64, undefined, { kind_mismatch: false }))).toMatchObject(
      {
        risk_level: 'low',
      },
    );
    // A sanctions flag of such a record is scaled into the medium band by the match already.
    expect(risk(flag('sanctions', 'ofac_sdn', 0.75, undefined, mismatched))).toEqual({
      risk_score: 44,
      risk_level: 'medium',
    });
  });

  it('never exceeds 100', () => {
    const all = ['sanctions', 'pep', 'watchlist', 'adverse_media'] as const;
    expect(risk(...all.map((t) => flag(t, `s-${t}`, 1, 'a'))).risk_score).toBe(100);
  });

  it.each([
    [0, 'low'],
    [24, 'low'],
    [25, 'medium'],
    [49, 'medium'],
    [50, 'high'],
    [79, 'high'],
    [80, 'critical'],
    [100, 'critical'],
  ] as const)('places %i in level %s', (score, level) => {
    expect(riskLevel(score)).toBe(level);
  });
});
