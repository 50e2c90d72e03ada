/**
 * Every source id the service knows (the lists: docs/lists.md; the providers: docs/architecture.md),
 * configured here or not. A request may name any of them in `options.sources`; one that is not
 * configured on this instance is simply not queried.
 */
export const KNOWN_SOURCE_IDS = [
  'ofac_sdn',
  'ofac_cons',
  'eu_fsf',
  'un_sc',
  'uk_fcdo',
  'uk_ofsi',
  'us_csl',
  'opensanctions',
  'gdelt',
  'uk_companies_house',
  'gleif',
] as const;

export function isKnownSourceId(id: string): boolean {
  return (KNOWN_SOURCE_IDS as readonly string[]).includes(id);
}
