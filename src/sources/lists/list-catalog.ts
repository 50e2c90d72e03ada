import type { Config, ListUrlKey } from '../../config.js';
import { type ListFlagMapper, listFlag } from '../list-flag.js';
import type { SourceKind } from '../source.js';
import { watchlistFlag } from '../watchlist-flag.js';
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
  /** `direct_feed` for an authority's own list, `watchlist_provider` for an aggregator's export. */
  kind: Extract<SourceKind, 'direct_feed' | 'watchlist_provider'>;
  /** How a matched entry becomes a flag (`listFlag`: a sanctions flag). */
  toFlag: ListFlagMapper;
}

/** What every official list has in common: its authority publishes it, its entries are sanctions. */
const OFFICIAL_LIST = { kind: 'direct_feed', toFlag: listFlag } as const;

const OFAC_EXPORTS = 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/';

function ofacUrls(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((name) => [name, `${OFAC_EXPORTS}${name}`]));
}

/**
 * Every list the service can load: the official lists, and OpenSanctions' bulk export (off unless
 * `OPENSANCTIONS_MODE=bulk`, whatever `LISTS_ENABLED` says, because its data needs a licence for
 * commercial use; see list-settings.ts). The EU address carries the public token that the
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
    ...OFFICIAL_LIST,
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
    ...OFFICIAL_LIST,
  },
  {
    id: 'un_sc',
    title: 'UN Security Council Consolidated List',
    authority: 'United Nations Security Council',
    urlVariable: 'LIST_URL_UN_SC',
    urlConfigKey: 'listUrlUnSc',
    officialUrls: { 'consolidated.xml': 'https://scsanctions.un.org/resources/xml/en/consolidated.xml' },
    enabledByDefault: true,
    ...OFFICIAL_LIST,
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
    ...OFFICIAL_LIST,
  },
  {
    id: 'uk_fcdo',
    title: 'UK Sanctions List',
    authority: 'UK Foreign, Commonwealth & Development Office',
    urlVariable: 'LIST_URL_UK_FCDO',
    urlConfigKey: 'listUrlUkFcdo',
    officialUrls: { 'UK-Sanctions-List.xml': 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml' },
    enabledByDefault: true,
    ...OFFICIAL_LIST,
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
    ...OFFICIAL_LIST,
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
    ...OFFICIAL_LIST,
  },
  {
    id: 'opensanctions',
    title: 'OpenSanctions (bulk export)',
    authority: 'OpenSanctions (aggregated from sanctions, PEP and watchlist sources)',
    urlVariable: 'LIST_URL_OPENSANCTIONS',
    urlConfigKey: 'listUrlOpensanctions',
    officialUrls: {
      'entities.ftm.json': 'https://data.opensanctions.org/datasets/latest/default/entities.ftm.json',
      'targets.nested.json': 'https://data.opensanctions.org/datasets/latest/default/targets.nested.json',
    },
    enabledByDefault: false,
    kind: 'watchlist_provider',
    toFlag: watchlistFlag,
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
