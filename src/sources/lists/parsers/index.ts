import { OPENSANCTIONS_SOURCE } from '../../opensanctions-datasets.js';
import { EU_FILE, EU_LIST, EU_SOURCE, parseEuXml } from './eu-xml.js';
import { FTM_ENTITIES_FILE, FTM_NESTED_FILE, parseFtmJsonl } from './ftm-jsonl.js';
import { OFAC_CONS_CSV_FILES, OFAC_SDN_CSV_FILES, type OfacCsvFileNames, parseOfacCsv } from './ofac-csv.js';
import { OFAC_CONS_ENHANCED_FILE, parseOfacEnhancedXml } from './ofac-enhanced-xml.js';
import type { ListFileSpec, ListParserDescriptor } from './types.js';
import { parseUkFcdoXml, UK_FCDO_FILE, UK_FCDO_LIST, UK_FCDO_SOURCE } from './uk-fcdo-xml.js';
import { parseUkOfsiCsv, UK_OFSI_FILE, UK_OFSI_LIST, UK_OFSI_SOURCE } from './uk-ofsi-csv.js';
import { parseUnXml, UN_FILE, UN_LIST, UN_SOURCE } from './un-xml.js';
import { parseUsCslCsv, US_CSL_FILE, US_CSL_SOURCE } from './us-csl-csv.js';

export { DEFAULT_LIST_PARSE_LIMITS, type ListParseLimits } from './limits.js';
export { ListParseError, type ListParsePosition } from './list-parse-error.js';
export type * from './types.js';
export { US_CSL_DEFAULT_SKIP_LISTS } from './us-csl-csv.js';
export { CSL_OFAC_NON_SDN_LISTS } from './us-csl-lists.js';

function ofacCsvFiles(names: OfacCsvFileNames): ListFileSpec[] {
  return [
    { name: names.primary, required: true },
    { name: names.alt, required: true },
    { name: names.add, required: true },
    { name: names.comments, required: false },
  ];
}

/**
 * Every list the service can read (the official lists and OpenSanctions' bulk exports), one entry
 * per source and format. A source with two
 * formats (OFAC's non-SDN list as legacy CSV or as Enhanced XML) has two entries; the first one
 * whose required files are present is the one to use.
 */
export const LIST_PARSERS: readonly ListParserDescriptor[] = [
  {
    id: 'ofac_sdn',
    format: 'ofac_legacy_csv',
    list: 'SDN',
    files: ofacCsvFiles(OFAC_SDN_CSV_FILES),
    parse: (files, options) => parseOfacCsv('ofac_sdn', 'SDN', OFAC_SDN_CSV_FILES, files, options),
  },
  {
    id: 'ofac_cons',
    format: 'ofac_legacy_csv',
    list: 'NON_SDN',
    files: ofacCsvFiles(OFAC_CONS_CSV_FILES),
    parse: (files, options) => parseOfacCsv('ofac_cons', 'NON_SDN', OFAC_CONS_CSV_FILES, files, options),
  },
  {
    id: 'ofac_cons',
    format: 'ofac_enhanced_xml',
    list: 'NON_SDN',
    files: [{ name: OFAC_CONS_ENHANCED_FILE, required: true }],
    parse: (files, options) =>
      parseOfacEnhancedXml('ofac_cons', 'NON_SDN', OFAC_CONS_ENHANCED_FILE, files, options),
  },
  {
    id: UN_SOURCE,
    format: 'un_xml',
    list: UN_LIST,
    files: [{ name: UN_FILE, required: true }],
    parse: parseUnXml,
  },
  {
    id: EU_SOURCE,
    format: 'eu_fsf_xml',
    list: EU_LIST,
    files: [{ name: EU_FILE, required: true }],
    parse: parseEuXml,
  },
  {
    id: UK_FCDO_SOURCE,
    format: 'uk_fcdo_xml',
    list: UK_FCDO_LIST,
    files: [{ name: UK_FCDO_FILE, required: true }],
    parse: parseUkFcdoXml,
  },
  {
    id: UK_OFSI_SOURCE,
    format: 'uk_ofsi_csv',
    list: UK_OFSI_LIST,
    files: [{ name: UK_OFSI_FILE, required: true }],
    parse: parseUkOfsiCsv,
  },
  {
    id: US_CSL_SOURCE,
    format: 'us_csl_csv',
    files: [{ name: US_CSL_FILE, required: true }],
    parse: parseUsCslCsv,
  },
  // Both OpenSanctions exports go through one parser, which tells them apart line by line; the
  // two entries only let a mirror or a URL override name either file.
  {
    id: OPENSANCTIONS_SOURCE,
    format: 'ftm_entities',
    files: [{ name: FTM_ENTITIES_FILE, required: true }],
    parse: (files, options) => parseFtmJsonl(FTM_ENTITIES_FILE, files, options),
  },
  {
    id: OPENSANCTIONS_SOURCE,
    format: 'ftm_nested',
    files: [{ name: FTM_NESTED_FILE, required: true }],
    parse: (files, options) => parseFtmJsonl(FTM_NESTED_FILE, files, options),
  },
];

/** The parsers of one source, preferred format first. */
export function listParsersFor(sourceId: string): ListParserDescriptor[] {
  return LIST_PARSERS.filter((parser) => parser.id === sourceId);
}

/**
 * Whether a file in a mirror folder is the official file `official`: same name ignoring case,
 * optionally with a '.gz' suffix (the parsers decompress gzip by its magic bytes).
 */
export function matchesOfficialFileName(official: string, candidate: string): boolean {
  const name = candidate.toLowerCase();
  const wanted = official.toLowerCase();
  return name === wanted || name === `${wanted}.gz`;
}
