import { describe, expect, it } from 'vitest';
import { assessRisk, authorityOf, riskLevel } from '../../../src/screening/risk.js';
import type { Flag } from '../../../src/sources/flag.js';

function flag(type: Flag['type'], source: string, match_score: number, list = 'X'): Flag {
  return { type, source, list, match_score, details: {} };
}

describe('risk score', () => {
  it('is zero and low without flags', () => {
    expect(assessRisk([])).toEqual({ risk_score: 0, risk_level: 'low' });
  });

  it('scales the points of a type by its strongest flag', () => {
    expect(assessRisk([flag('sanctions', 'ofac_sdn', 1)])).toEqual({ risk_score: 60, risk_level: 'high' });
    expect(
      assessRisk([flag('sanctions', 'ofac_sdn', 0.85), flag('sanctions', 'ofac_sdn', 0.6)]).risk_score,
    ).toBe(51);
    expect(assessRisk([flag('pep', 'opensanctions', 0.9)])).toEqual({ risk_score: 36, risk_level: 'medium' });
    expect(assessRisk([flag('adverse_media', 'gdelt', 0.7)])).toEqual({ risk_score: 14, risk_level: 'low' });
  });

  it('adds the types present and 10 for two independent authorities', () => {
    // sanctions 60 + pep 40*0.9=36 + bonus 10 = 106 -> capped at 100
    const flags = [flag('sanctions', 'un_sc', 1), flag('pep', 'opensanctions', 0.9)];
    expect(assessRisk(flags)).toEqual({ risk_score: 100, risk_level: 'critical' });
    // 60*0.9=54 + 30*0.8=24 + 10 = 88
    expect(
      assessRisk([flag('sanctions', 'eu_fsf', 0.9), flag('watchlist', 'opensanctions', 0.8)]).risk_score,
    ).toBe(88);
  });

  it('counts OFAC SDN and non-SDN as one authority, and UK FCDO and OFSI as one', () => {
    expect(assessRisk([flag('sanctions', 'ofac_sdn', 1), flag('sanctions', 'ofac_cons', 1)]).risk_score).toBe(
      60,
    );
    expect(assessRisk([flag('sanctions', 'uk_fcdo', 1), flag('sanctions', 'uk_ofsi', 1)]).risk_score).toBe(
      60,
    );
    expect(assessRisk([flag('sanctions', 'ofac_sdn', 1), flag('sanctions', 'eu_fsf', 1)]).risk_score).toBe(
      70,
    );
  });

  it("treats the CSL's copies of OFAC lists as OFAC and its other lists as independent", () => {
    expect(authorityOf({ source: 'us_csl', list: 'SECTORAL_SANCTIONS' })).toBe('us_ofac');
    expect(authorityOf({ source: 'us_csl', list: 'ENTITY_LIST' })).toBe('us_csl');
  });

  it('rounds half-points and never exceeds 100', () => {
    expect(assessRisk([flag('adverse_media', 'gdelt', 0.525)]).risk_score).toBe(11);
    const all = ['sanctions', 'pep', 'watchlist', 'adverse_media'] as const;
    expect(assessRisk(all.map((t, i) => flag(t, `s${i}`, 1))).risk_score).toBe(100);
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
