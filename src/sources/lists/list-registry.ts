import { type ListFlagMapper, listFlag } from '../list-flag.js';
import { OPENSANCTIONS_SOURCE } from '../opensanctions-datasets.js';
import type { SourceKind } from '../source.js';
import { watchlistFlag } from '../watchlist-flag.js';
import { EU_FILE, EU_LIST, EU_SOURCE, parseEuXml } from './parsers/eu-xml.js';
import { FTM_ENTITIES_FILE, FTM_NESTED_FILE, parseFtmJsonl } from './parsers/ftm-jsonl.js';
import {
  OFAC_CONS_CSV_FILES,
  OFAC_SDN_CSV_FILES,
  type OfacCsvFileNames,
  parseOfacCsv,
} from './parsers/ofac-csv.js';
import { OFAC_CONS_ENHANCED_FILE, parseOfacEnhancedXml } from './parsers/ofac-enhanced-xml.js';
import type { ListFileSpec, ListParserDescriptor } from './parsers/types.js';
import { parseUkFcdoXml, UK_FCDO_FILE, UK_FCDO_LIST, UK_FCDO_SOURCE } from './parsers/uk-fcdo-xml.js';
import { parseUkOfsiCsv, UK_OFSI_FILE, UK_OFSI_LIST, UK_OFSI_SOURCE } from './parsers/uk-ofsi-csv.js';
import { parseUnXml, UN_FILE, UN_LIST, UN_SOURCE } from './parsers/un-xml.js';
import { parseUsCslCsv, US_CSL_FILE, US_CSL_SOURCE } from './parsers/us-csl-csv.js';

/** One format a list is read in: its files and its parser (the list's id is the entry's). */
export type ListFormat = Omit<ListParserDescriptor, 'id'>;

/** The setting that overrides where a list's main file is downloaded from (one env var). */
export interface ListUrlSetting<Key extends string = ListUrlKey> {
  variable: string;
  /** Its field of `Config`. */
  key: Key;
  /** How its description names the list and the official file it replaces. */
  list: string;
  official: string;
}

export interface ListRegistryEntry<Key extends string = ListUrlKey> {
  /** Source id (`flag.source`). */
  id: string;
  title: string;
  authority: string;
  /** Whether `LISTS_ENABLED` unset loads it (an official list; OpenSanctions has its own mode). */
  enabledByDefault: boolean;
  url: ListUrlSetting<Key>;
  /** Official download address of every file the service can read, by official file name. */
  officialUrls: Readonly<Record<string, string>>;
  /** The formats the service reads, preferred first: the first whose required files are present. */
  formats: readonly ListFormat[];
  /**
   * Days after its publication date (`list_date`) past which the version in service is stale, by
   * default (`LISTS_MAX_AGE_DAYS`): a little over the longest usual gap between two publications.
   */
  maxAgeDays: number;
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

function ofacCsvFiles(names: OfacCsvFileNames): ListFileSpec[] {
  return [
    { name: names.primary, required: true },
    { name: names.alt, required: true },
    { name: names.add, required: true },
    { name: names.comments, required: false },
  ];
}

/**
 * Every list the service can load, the one place a list is declared: the official lists, and
 * OpenSanctions' bulk export (off unless `OPENSANCTIONS_MODE=bulk`, whatever `LISTS_ENABLED` says,
 * because its data needs a licence for commercial use; see src/source-settings.ts). Adding a list
 * is an entry here and its parser. The EU address carries the public token that the Commission's
 * own download page uses; an automated download may still be answered with a login page, which
 * the parser refuses (the previous version stays in service).
 */
const ENTRIES = [
  {
    id: 'ofac_sdn',
    title: 'OFAC Specially Designated Nationals (SDN)',
    authority: 'US Treasury OFAC',
    enabledByDefault: true,
    // SDN.CSV states no date (its download's Last-Modified stands in); two weeks without an OFAC action are rare.
    maxAgeDays: 14,
    url: {
      variable: 'LIST_URL_OFAC_SDN',
      key: 'listUrlOfacSdn',
      list: 'OFAC SDN',
      official: "OFAC's SDN.CSV",
    },
    officialUrls: ofacUrls('SDN.CSV', 'ALT.CSV', 'ADD.CSV', 'SDN_COMMENTS.CSV'),
    formats: [
      {
        format: 'ofac_legacy_csv',
        list: 'SDN',
        files: ofacCsvFiles(OFAC_SDN_CSV_FILES),
        parse: (files, options) => parseOfacCsv('ofac_sdn', 'SDN', OFAC_SDN_CSV_FILES, files, options),
      },
    ],
    ...OFFICIAL_LIST,
  },
  {
    id: 'ofac_cons',
    title: 'OFAC consolidated non-SDN lists',
    authority: 'US Treasury OFAC',
    enabledByDefault: true,
    maxAgeDays: 14,
    url: {
      variable: 'LIST_URL_OFAC_CONS',
      key: 'listUrlOfacCons',
      list: 'OFAC non-SDN',
      official: "OFAC's CONS_PRIM.CSV (CONS_ENHANCED.ZIP works too)",
    },
    officialUrls: ofacUrls(
      'CONS_PRIM.CSV',
      'CONS_ALT.CSV',
      'CONS_ADD.CSV',
      'CONS_COMMENTS.CSV',
      'CONS_ENHANCED.ZIP',
    ),
    formats: [
      {
        format: 'ofac_legacy_csv',
        list: 'NON_SDN',
        files: ofacCsvFiles(OFAC_CONS_CSV_FILES),
        parse: (files, options) => parseOfacCsv('ofac_cons', 'NON_SDN', OFAC_CONS_CSV_FILES, files, options),
      },
      {
        format: 'ofac_enhanced_xml',
        list: 'NON_SDN',
        files: [{ name: OFAC_CONS_ENHANCED_FILE, required: true }],
        parse: (files, options) =>
          parseOfacEnhancedXml('ofac_cons', 'NON_SDN', OFAC_CONS_ENHANCED_FILE, files, options),
      },
    ],
    ...OFFICIAL_LIST,
  },
  {
    id: UN_SOURCE,
    title: 'UN Security Council Consolidated List',
    authority: 'United Nations Security Council',
    enabledByDefault: true,
    // Generated every night, whether the list changed or not (dateGenerated).
    maxAgeDays: 7,
    url: {
      variable: 'LIST_URL_UN_SC',
      key: 'listUrlUnSc',
      list: 'UN Security Council',
      official: 'scsanctions.un.org',
    },
    officialUrls: { 'consolidated.xml': 'https://scsanctions.un.org/resources/xml/en/consolidated.xml' },
    formats: [
      { format: 'un_xml', list: UN_LIST, files: [{ name: UN_FILE, required: true }], parse: parseUnXml },
    ],
    ...OFFICIAL_LIST,
  },
  {
    id: EU_SOURCE,
    title: 'EU Consolidated Financial Sanctions List',
    authority: 'European Commission (FSF)',
    enabledByDefault: true,
    maxAgeDays: 7,
    url: {
      variable: 'LIST_URL_EU_FSF',
      key: 'listUrlEuFsf',
      list: 'EU financial sanctions',
      official: 'the EU FSF XML',
    },
    officialUrls: {
      'xmlFullSanctionsList_1_1.xml':
        'https://webgate.ec.europa.eu/fsd/fsf/public/files/xmlFullSanctionsList_1_1/content?token=dG9rZW4tMjAxNw',
    },
    formats: [
      { format: 'eu_fsf_xml', list: EU_LIST, files: [{ name: EU_FILE, required: true }], parse: parseEuXml },
    ],
    ...OFFICIAL_LIST,
  },
  {
    id: UK_FCDO_SOURCE,
    title: 'UK Sanctions List',
    authority: 'UK Foreign, Commonwealth & Development Office',
    enabledByDefault: true,
    maxAgeDays: 7,
    url: {
      variable: 'LIST_URL_UK_FCDO',
      key: 'listUrlUkFcdo',
      list: 'UK Sanctions List',
      official: 'sanctionslist.fcdo.gov.uk',
    },
    officialUrls: { 'UK-Sanctions-List.xml': 'https://sanctionslist.fcdo.gov.uk/docs/UK-Sanctions-List.xml' },
    formats: [
      {
        format: 'uk_fcdo_xml',
        list: UK_FCDO_LIST,
        files: [{ name: UK_FCDO_FILE, required: true }],
        parse: parseUkFcdoXml,
      },
    ],
    ...OFFICIAL_LIST,
  },
  {
    id: UK_OFSI_SOURCE,
    title: 'OFSI Consolidated List of Financial Sanctions Targets',
    authority: 'HM Treasury OFSI',
    // Being retired in favour of the FCDO list, which carries the same designations.
    enabledByDefault: false,
    // `Last Updated` moves with a change only.
    maxAgeDays: 14,
    url: {
      variable: 'LIST_URL_UK_OFSI',
      key: 'listUrlUkOfsi',
      list: 'OFSI consolidated',
      official: "OFSI's ConList.csv",
    },
    officialUrls: {
      'ConList.csv': 'https://ofsistorage.blob.core.windows.net/publishlive/2022format/ConList.csv',
    },
    formats: [
      {
        format: 'uk_ofsi_csv',
        list: UK_OFSI_LIST,
        files: [{ name: UK_OFSI_FILE, required: true }],
        parse: parseUkOfsiCsv,
      },
    ],
    ...OFFICIAL_LIST,
  },
  {
    id: US_CSL_SOURCE,
    title: 'US Consolidated Screening List',
    authority: 'US Department of Commerce (trade.gov)',
    enabledByDefault: true,
    maxAgeDays: 7,
    url: {
      variable: 'LIST_URL_US_CSL',
      key: 'listUrlUsCsl',
      list: 'US Consolidated Screening List',
      official: 'data.trade.gov',
    },
    officialUrls: {
      'consolidated.csv':
        'https://data.trade.gov/downloadable_consolidated_screening_list/v1/consolidated.csv',
    },
    formats: [{ format: 'us_csl_csv', files: [{ name: US_CSL_FILE, required: true }], parse: parseUsCslCsv }],
    ...OFFICIAL_LIST,
  },
  {
    id: OPENSANCTIONS_SOURCE,
    title: 'OpenSanctions (bulk export)',
    authority: 'OpenSanctions (aggregated from sanctions, PEP and watchlist sources)',
    enabledByDefault: false,
    maxAgeDays: 7,
    url: {
      variable: 'LIST_URL_OPENSANCTIONS',
      key: 'listUrlOpensanctions',
      list: 'OpenSanctions bulk (`OPENSANCTIONS_MODE=bulk`)',
      official: 'entities.ftm.json of the `default` collection (a targets.nested.json works too)',
    },
    officialUrls: {
      'entities.ftm.json': 'https://data.opensanctions.org/datasets/latest/default/entities.ftm.json',
      'targets.nested.json': 'https://data.opensanctions.org/datasets/latest/default/targets.nested.json',
    },
    // Both exports go through one parser, which tells them apart line by line; the two formats
    // only let a mirror or a URL override name either file.
    formats: [
      {
        format: 'ftm_entities',
        files: [{ name: FTM_ENTITIES_FILE, required: true }],
        parse: (files, options) => parseFtmJsonl(FTM_ENTITIES_FILE, files, options),
      },
      {
        format: 'ftm_nested',
        files: [{ name: FTM_NESTED_FILE, required: true }],
        parse: (files, options) => parseFtmJsonl(FTM_NESTED_FILE, files, options),
      },
    ],
    kind: 'watchlist_provider',
    toFlag: watchlistFlag,
  },
] as const satisfies readonly ListRegistryEntry<`listUrl${string}`>[];

/** The `Config` fields of the lists' URL settings. */
export type ListUrlKey = (typeof ENTRIES)[number]['url']['key'];

export const LIST_REGISTRY: readonly ListRegistryEntry[] = ENTRIES;

/** The official lists, which `LISTS_ENABLED` names (OpenSanctions' export has its own mode). */
export const OFFICIAL_LIST_IDS: readonly string[] = LIST_REGISTRY.filter(
  (entry) => entry.kind === 'direct_feed',
).map((entry) => entry.id);

/**
 * Every list's parsers, one per source and format: the parse thread finds a list version's parser
 * here by both.
 */
export const LIST_PARSERS: readonly ListParserDescriptor[] = LIST_REGISTRY.flatMap((entry) =>
  entry.formats.map((format) => ({ id: entry.id, ...format })),
);

export function registeredList(id: string): ListRegistryEntry | undefined {
  return LIST_REGISTRY.find((entry) => entry.id === id);
}

/** The formats the service reads for a list, preferred first. */
export function parsersOf(id: string): ListParserDescriptor[] {
  return LIST_PARSERS.filter((parser) => parser.id === id);
}

/** The registry's entries among `enabled` ids, in the registry's order (the order lists load in). */
export function enabledListEntries(enabled: readonly string[]): ListRegistryEntry[] {
  return LIST_REGISTRY.filter((entry) => enabled.includes(entry.id));
}
