import type { Flag, FlagType } from '../sources/flag.js';
import { CSL_OFAC_NON_SDN_LISTS } from '../sources/lists/parsers/us-csl-lists.js';
import { partyOf } from './parties.js';

/**
 * The risk rule, deterministic and pure (docs/risk.md): per flag type the strongest flag counts,
 * its type's points scaled by the strength of its match (`matchStrength`); the types present add
 * up; a bonus when the strongest match's listed party is named by two or more independent
 * authorities (`parties.ts`); at least `medium` with a record of another kind than the query's
 * type; rounded and capped at 100.
 */
export const RISK_POINTS_BY_FLAG_TYPE: Readonly<Record<FlagType, number>> = {
  sanctions: 60,
  pep: 40,
  watchlist: 30,
  adverse_media: 20,
};
export const INDEPENDENT_AUTHORITIES_BONUS = 10;
export const RISK_SCORE_MAX = 100;

export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

/** Lower bounds of each level, highest first: critical 80-100, high 50-79, medium 25-49, low 0-24. */
export const RISK_LEVEL_FLOORS: readonly [RiskLevel, number][] = [
  ['critical', 80],
  ['high', 50],
  ['medium', 25],
  ['low', 0],
];

/** Sources that publish the same authority's listings; they count once for the bonus. */
const AUTHORITY_OF_SOURCE: Readonly<Record<string, string>> = {
  ofac_sdn: 'us_ofac',
  ofac_cons: 'us_ofac',
  uk_fcdo: 'uk_government',
  uk_ofsi: 'uk_government',
};

/**
 * The authority behind a flag. The US Consolidated Screening List bundles other agencies' lists;
 * its rows that are OFAC's own non-SDN lists belong to OFAC. Aggregators (OpenSanctions) are their
 * own authority, so an aggregator confirming an official list counts as independent.
 */
export function authorityOf(flag: Pick<Flag, 'source' | 'list'>): string {
  if (flag.source === 'us_csl') {
    return flag.list === 'SDN' || CSL_OFAC_NON_SDN_LISTS.includes(flag.list) ? 'us_ofac' : 'us_csl';
  }
  return AUTHORITY_OF_SOURCE[flag.source] ?? flag.source;
}

export function riskLevel(score: number): RiskLevel {
  for (const [level, floor] of RISK_LEVEL_FLOORS) if (score >= floor) return level;
  return 'low';
}

/**
 * How much of its type's points a match earns, by its match score: piecewise linear through these
 * knots. A sanctions flag (60 points) is `high` from a score of 0.8 (50 points), `medium` from 0.6
 * (25), `low` below: a common name's partial match (a shared given name and family name, an extra
 * word, a short name's typo) scores 0.6-0.8, a listed name with a typo or a missing middle name
 * 0.8 and more, an exact one 1.0. Measured with `npm run eval:alerts` (docs/risk.md).
 */
export const MATCH_STRENGTH_KNOTS: readonly (readonly [score: number, strength: number])[] = [
  [0, 0],
  [0.5, 0.25],
  [0.6, 5 / 12],
  [0.8, 5 / 6],
  [1, 1],
];

export function matchStrength(score: number): number {
  const s = Math.min(1, Math.max(0, score));
  for (let k = 1; k < MATCH_STRENGTH_KNOTS.length; k++) {
    const [x1, y1] = MATCH_STRENGTH_KNOTS[k]!;
    if (s <= x1) {
      const [x0, y0] = MATCH_STRENGTH_KNOTS[k - 1]!;
      return y0 + ((s - x0) / (x1 - x0)) * (y1 - y0);
    }
  }
  return 1;
}

/**
 * Whether the strongest match (the flag that earns the most points; any of them on a tie) is of a
 * listed party named by flags of two or more independent authorities. Another party confirmed by
 * two lists (a relative matched weakly) does not make the strongest match any surer.
 */
export function confirmedByIndependentAuthorities(flags: readonly Flag[]): boolean {
  const points = (flag: Flag) => RISK_POINTS_BY_FLAG_TYPE[flag.type] * matchStrength(flag.match_score);
  const most = Math.max(0, ...flags.map(points));
  const strongest = new Set(flags.filter((f) => points(f) === most).flatMap((f) => partyOf(f) ?? []));
  const authorities = new Map<string, Set<string>>();
  for (const flag of flags) {
    const party = partyOf(flag);
    if (party === undefined || !strongest.has(party)) continue;
    const seen = authorities.get(party) ?? new Set<string>();
    seen.add(authorityOf(flag));
    authorities.set(party, seen);
    if (seen.size >= 2) return true;
  }
  return false;
}

/**
 * The least score of a screening with a flag of a record of another kind than the query's type
 * (`details.kind_mismatch`): the lowest of `medium`. Customers' data is often mislabelled, so such
 * a record, found by a strong name match, is for review whatever its type's points.
 */
export const KIND_MISMATCH_RISK_FLOOR = RISK_LEVEL_FLOORS.find(([level]) => level === 'medium')![1];

/** The risk score of a screening's flags, whose parties are assigned (`assignParties`). */
export function riskScore(flags: readonly Flag[]): number {
  const strongest = new Map<FlagType, number>();
  for (const flag of flags)
    strongest.set(flag.type, Math.max(strongest.get(flag.type) ?? 0, flag.match_score));
  let points = 0;
  for (const [type, score] of strongest) points += RISK_POINTS_BY_FLAG_TYPE[type] * matchStrength(score);
  if (confirmedByIndependentAuthorities(flags)) points += INDEPENDENT_AUTHORITIES_BONUS;
  if (flags.some((flag) => flag.details.kind_mismatch === true))
    points = Math.max(points, KIND_MISMATCH_RISK_FLOOR);
  return Math.min(RISK_SCORE_MAX, Math.round(points));
}

export function assessRisk(flags: readonly Flag[]): { risk_score: number; risk_level: RiskLevel } {
  const score = riskScore(flags);
  return { risk_score: score, risk_level: riskLevel(score) };
}
