export { DEFAULT_LIST_PARSE_LIMITS, type ListParseLimits } from './limits.js';
export { ListParseError, type ListParsePosition } from './list-parse-error.js';
export type * from './types.js';
export { US_CSL_DEFAULT_SKIP_LISTS } from './us-csl-csv.js';
export { CSL_OFAC_NON_SDN_LISTS } from './us-csl-lists.js';

/**
 * Whether a file in a mirror folder is the official file `official`: same name ignoring case,
 * optionally with a '.gz' suffix (the parsers decompress gzip by its magic bytes).
 */
export function matchesOfficialFileName(official: string, candidate: string): boolean {
  const name = candidate.toLowerCase();
  const wanted = official.toLowerCase();
  return name === wanted || name === `${wanted}.gz`;
}
