/** OpenSanctions' source id: its bulk export as a list, and its API as a provider. */
export const OPENSANCTIONS_SOURCE = 'opensanctions';

/**
 * OpenSanctions datasets that are official lists this service also loads directly, with the
 * service's source id for each, in the order a confirmation names them (the US Treasury's own
 * lists first, the US Consolidated Screening List, which repeats them, last). Dataset names are
 * OpenSanctions' own (https://www.opensanctions.org/datasets/<name>/).
 */
export const OFFICIAL_LIST_DATASETS: ReadonlyArray<{ dataset: string; source: string }> = [
  { dataset: 'us_ofac_sdn', source: 'ofac_sdn' },
  { dataset: 'us_ofac_cons', source: 'ofac_cons' },
  { dataset: 'un_sc_sanctions', source: 'un_sc' },
  { dataset: 'eu_fsf', source: 'eu_fsf' },
  { dataset: 'gb_fcdo_sanctions', source: 'uk_fcdo' },
  { dataset: 'gb_hmt_sanctions', source: 'uk_ofsi' },
  { dataset: 'us_trade_csl', source: 'us_csl' },
];
