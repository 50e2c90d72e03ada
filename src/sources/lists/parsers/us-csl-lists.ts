// The US Consolidated Screening List names its sub-list in a `source` column such as
// "Entity List (EL) - Bureau of Industry and Security". `flag.list` wants one stable upper snake
// case name, so the abbreviation in parentheses is mapped; an unknown one is derived from the text.
const BY_ABBREVIATION: Readonly<Record<string, string>> = {
  SDN: 'SDN',
  EL: 'ENTITY_LIST',
  DPL: 'DENIED_PERSONS',
  DTC: 'ITAR_DEBARRED',
  SSI: 'SECTORAL_SANCTIONS',
  UVL: 'UNVERIFIED_LIST',
  ISN: 'NONPROLIFERATION_SANCTIONS',
  PLC: 'PALESTINIAN_LEGISLATIVE_COUNCIL',
  MEU: 'MILITARY_END_USER',
  CMIC: 'CHINESE_MILITARY_INDUSTRIAL_COMPLEX',
  CAP: 'CAPTA',
  'NS-MBS LIST': 'MENU_BASED_SANCTIONS',
  FSE: 'FOREIGN_SANCTIONS_EVADERS',
};

/** CSL sub-lists that are OFAC's non-SDN consolidated lists (the `ofac_cons` source). */
export const CSL_OFAC_NON_SDN_LISTS: readonly string[] = [
  'SECTORAL_SANCTIONS',
  'PALESTINIAN_LEGISLATIVE_COUNCIL',
  'CHINESE_MILITARY_INDUSTRIAL_COMPLEX',
  'CAPTA',
  'MENU_BASED_SANCTIONS',
  'FOREIGN_SANCTIONS_EVADERS',
];

export function cslListName(source: string): string {
  const abbreviation = /\(([^)]+)\)/.exec(source)?.[1]?.trim().toUpperCase();
  if (abbreviation && BY_ABBREVIATION[abbreviation]) return BY_ABBREVIATION[abbreviation];
  const title = source.split(' - ')[0]!.replace(/\([^)]*\)/g, ' ');
  const snake = title
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return snake || 'UNKNOWN';
}
