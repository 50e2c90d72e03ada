import type { Config, ListUrlKey } from '../../config.js';
import { LIST_PARSERS } from './parsers/index.js';
import type { ListParserDescriptor } from './parsers/types.js';

/** Config fields holding one list's URL override (one env var each, see `SETTINGS`). */
export type ListUrlConfigKey = ListUrlKey;

export interface ListCatalogEntry {
  /** Source id (`flag.source`). */
  id: string;
  title: string;
  authority: string;
  /** The env var that overrides where the list's main file is downloaded from. */
  urlVariable: string;
  urlConfigKey: ListUrlConfigKey;
  /** Official download address of every file the service can read, by official file name. */
  officialUrls: Readonly<Record<string, string>>;
  enabledByDefault: boolean;
}

const OFAC_EXPORTS = 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/';

function ofacUrls(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `${OFAC_EXPORTS}${name}`]));
}

/**
 * Every official list the service can load. The EU address carries the public token that the
 * Commission's own download page uses; an automated download may still be answered with a login
 * page, which the parser refuses (the previous version stays in service).
 */
export const LIST_CATALOG: readonly ListCatalogEntry[] = [
  {
    id: 'ofac_sdn',
    title: 'OFAC Specially Designated Nationals (SDN)',
    authority: 'US Treasury OFAC',
    urlVariable: 'LIST_URL_OFAC_SDN',
    urlConfigKey: 'listUrlOfacSdn',
    officialUrls: ofacUrls('SDN.CSV', 'ALT.CSV', 'ADD.CSV', 'SDN_COMMENTS.CSV'),
    enabledByDefault: true,
  },
  {
    id: 'ofac_cons',
    title: 'OFAC consolidated non-SDN lists',
    authority: 'US Treasury OFAC',
    urlVariable: 'LIST_URL_OFAC_CONS',
    urlConfigKey: 'listUrlOfacCons',
    officialUrls: ofacUrls(
      'CONS_PRIM.CSV',
      'CONS_ALT.CSV',
      'CONS_ADD.CSV',
      'CONS_COMMENTS.CSV',
      'CONS_ENHANCED.ZIP',
    ),
    enabledByDefault: true,
  },
  {
    id: 'un_sc',
    title: 'UN Security Council Consolidated List',
    authority: 'United Nations Security Council',
    urlVariable: 'LIST_URL_UN_SC',
    urlConfigKey: 'listUrlUnSc',
    officialUrls: { 'consolidated.xml': 'https://scsanctions.un.org/resources/xml/en/consolidated.xml' },
    enabledByDefault: true,
  },
  {
    id: 'eu_fsf',
    title: 'EU Consolidated Financial Sanctions List',
    authority: 'European Commission (FSF)',
    urlVariable: 'LIST_URL_EU_FSF',
    urlConfigKey: 'listUrlEuFsf',
    officialUrls: {
      'xmlFullSanctionsList_1_1.xml':
        'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw',
    },
    enabledByDefault: true,
  },
  {
    id: 'uk_fcdo',
    title: 'UK Sanctions List',
    authority: 'UK Foreign, Commonwealth & Development Office',
    urlVariable: 'LIST_URL_UK_FCDO',
    urlConfigKey: 'listUrlUkFcdo',
    officialUrls: { 'UK-Sanctions-List.xml': 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml' },
    enabledByDefault: true,
  },
  {
    id: 'uk_ofsi',
    title: 'OFSI Consolidated List of Financial Sanctions Targets',
    authority: 'HM Treasury OFSI',
    urlVariable: 'LIST_URL_UK_OFSI',
    urlConfigKey: 'listUrlUkOfsi',
    officialUrls: {
      'ConList.csv': 'https://ofsistorage.blob.core.windows.net/publishlive/2022format/ConList.csv',
    },
    // Being retired in favour of the FCDO list, which carries the same designations.
    enabledByDefault: false,
  },
  {
    id: 'us_csl',
    title: 'US Consolidated Screening List',
    authority: 'US Department of Commerce (trade.gov)',
    urlVariable: 'LIST_URL_US_CSL',
    urlConfigKey: 'listUrlUsCsl',
    officialUrls: {
      'consolidated.csv':
        'https://data.trade.gov/downloadable_consolidated_screening_list/v1/consolidated.csv',
    },
    enabledByDefault: true,
  },
];

export function catalogEntry(id: string): ListCatalogEntry | undefined {
  return LIST_CATALOG.find((entry) => entry.id === id);
}

/** The formats the service reads for a list, preferred first (the order of `LIST_PARSERS`). */
export function parsersOf(id: string): ListParserDescriptor[] {
  return LIST_PARSERS.filter((parser) => parser.id === id);
}

/** The URL override configured for a list, if any. */
export function urlOverride(
  config: Pick<Config, ListUrlConfigKey>,
  entry: ListCatalogEntry,
): string | undefined {
  return config[entry.urlConfigKey];
}
