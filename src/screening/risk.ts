import type { Flag, FlagType } from '../sources/flag.js';
import { CSL_OFAC_NON_SDN_LISTS } from '../sources/lists/parsers/us-csl-lists.js';

/**
 * The risk rule (DESIGN.md §5), deterministic and pure: per flag type the strongest flag counts,
 * its points scaled by its match score; the types present add up; a bonus when two or more
 * independent authorities matched; rounded and capped at 100.
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

export function riskScore(flags: readonly Flag[]): number {
  const strongest = new Map<FlagType, number>();
  for (const flag of flags)
    strongest.set(flag.type, Math.max(strongest.get(flag.type) ?? 0, flag.match_score));
  let points = 0;
  for (const [type, score] of strongest) points += RISK_POINTS_BY_FLAG_TYPE[type] * score;
  const authorities = new Set(flags.map(authorityOf));
  if (authorities.size >= 2) points += INDEPENDENT_AUTHORITIES_BONUS;
  return Math.min(RISK_SCORE_MAX, Math.round(points));
}

export function assessRisk(flags: readonly Flag[]): { risk_score: number; risk_level: RiskLevel } {
  const score = riskScore(flags);
  return { risk_score: score, risk_level: riskLevel(score) };
}
