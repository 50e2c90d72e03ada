import { Weighted } from './random.js';

/**
 * The mix of the synthetic `default` collection: which kinds of target it holds, in what shares,
 * with which topics, schemata and datasets. Shares are assumptions shaped after OpenSanctions'
 * published statistics (docs/benchmarks.md, "The synthetic OpenSanctions export"): most targets
 * are politically exposed persons and their relatives, then non-sanction watchlists (debarments,
 * crime, persons of interest, regulators), and a minority, about one in twenty, is sanctioned.
 * Dataset names are OpenSanctions' own where known; the data is synthetic.
 */

export type ProfileName =
  | 'pep'
  | 'rca'
  | 'sanction'
  | 'sanction_linked'
  | 'debarment'
  | 'crime'
  | 'poi'
  | 'export_control'
  | 'regulatory'
  | 'state_owned';

export type TargetSchema =
  | 'Person'
  | 'Organization'
  | 'Company'
  | 'LegalEntity'
  | 'PublicBody'
  | 'Vessel'
  | 'Airplane'
  | 'CryptoWallet';

export interface Profile {
  name: ProfileName;
  /** Share of all targets, in percent. */
  share: number;
  schemata: Weighted<TargetSchema>;
  /** The topic sets a target of this profile carries, weighted. */
  topics: Weighted<readonly string[]>;
  datasets: Weighted<string>;
  /** How many datasets list one target: 1 + a draw below this. */
  extraDatasets: number;
  /** Id style: OpenSanctions' merged `NK-` ids for targets several sources list, Wikidata Q ids, or a dataset prefix. */
  ids: 'nk' | 'wikidata' | 'prefixed';
}

const w = <T>(choices: ReadonlyArray<readonly [T, number]>) => new Weighted(choices);

export const PEP_DATASETS = w([
  ['wd_peps', 40],
  ['everypolitician', 12],
  ['wd_categories', 10],
  ['us_cia_world_leaders', 4],
  ['ru_rupep', 4],
  ['ua_nazk_peps', 3],
  ['br_pep', 8],
  ['co_pep', 4],
  ['ar_pep', 3],
  ['in_pep', 4],
  ['ng_pep', 3],
  ['eu_meps', 1],
  ['gb_parliament', 1],
  ['us_congress', 1],
  ['id_pep', 2],
]);

export const SANCTION_DATASETS = w([
  ['us_ofac_sdn', 14],
  ['us_ofac_cons', 1],
  ['un_sc_sanctions', 2],
  ['eu_fsf', 9],
  ['gb_hmt_sanctions', 6],
  ['gb_fcdo_sanctions', 6],
  ['ch_seco_sanctions', 6],
  ['ua_nsdc_sanctions', 8],
  ['ua_war_sanctions', 5],
  ['ca_dfatd_sema_sanctions', 4],
  ['au_dfat_sanctions', 4],
  ['jp_mof_sanctions', 3],
  ['fr_tresor_gels_avoir', 5],
  ['be_fod_sanctions', 3],
  ['nz_russia_sanctions', 2],
  ['mc_fund_freezes', 3],
  ['us_trade_csl', 6],
  ['il_mod_terrorists', 2],
  ['kz_afmrk_sanctions', 1],
]);

const ENRICHMENT_DATASETS = w([
  ['ext_ru_egrul', 5],
  ['ext_gleif', 3],
  ['ext_ua_edr', 2],
]);

const DEBARMENT_DATASETS = w([
  ['us_sam_exclusions', 30],
  ['us_hhs_exclusions', 20],
  ['worldbank_debarred', 6],
  ['adb_sanctions', 3],
  ['afdb_sanctions', 2],
  ['iadb_sanctions', 2],
  ['ua_sfms_blacklist', 2],
  ['us_ca_med_exclusions', 6],
]);

const CRIME_DATASETS = w([
  ['interpol_red_notices', 20],
  ['us_fbi_most_wanted', 2],
  ['gb_nca_most_wanted', 1],
  ['ru_mvd_wanted', 10],
  ['ua_mvs_wanted', 8],
  ['pl_wanted', 3],
  ['us_dea_fugitives', 2],
  ['eu_most_wanted', 1],
]);

const POI_DATASETS = w([
  ['ru_myrotvorets', 10],
  ['ua_war_sanctions', 3],
  ['tw_shtc', 1],
  ['us_fincen_311', 1],
  ['ann_pep_positions', 2],
]);

const EXPORT_CONTROL_DATASETS = w([
  ['us_bis_denied', 3],
  ['us_trade_csl', 6],
  ['jp_meti_ru', 2],
  ['jp_end_user_list', 2],
]);

const REGULATORY_DATASETS = w([
  ['gb_coh_disqualified', 10],
  ['us_sec_litigation', 3],
  ['iosco_alerts', 4],
  ['us_finra_enforcement', 2],
  ['ru_cbr_warnings', 3],
]);

const STATE_OWNED_DATASETS = w([
  ['ru_nsd_isin', 2],
  ['cn_state_owned', 2],
  ['wd_state_owned', 3],
]);

/** Every profile; shares sum to 100. */
export const PROFILES: readonly Profile[] = [
  {
    name: 'pep',
    share: 52,
    schemata: w([['Person', 1]]),
    topics: w([[['role.pep'], 1]]),
    datasets: PEP_DATASETS,
    extraDatasets: 1.4,
    ids: 'wikidata',
  },
  {
    name: 'rca',
    share: 12,
    schemata: w([['Person', 1]]),
    topics: w([[['role.rca'], 1]]),
    datasets: PEP_DATASETS,
    extraDatasets: 1.2,
    ids: 'wikidata',
  },
  {
    name: 'sanction',
    share: 5,
    schemata: w<TargetSchema>([
      ['Person', 52],
      ['Company', 20],
      ['Organization', 14],
      ['LegalEntity', 5],
      ['Vessel', 5],
      ['Airplane', 1.5],
      ['CryptoWallet', 2.5],
    ]),
    topics: w<readonly string[]>([
      [['sanction'], 80],
      [['sanction', 'poi'], 8],
      [['sanction', 'crime.terror'], 6],
      [['sanction', 'role.pep'], 6],
    ]),
    datasets: SANCTION_DATASETS,
    extraDatasets: 5,
    ids: 'nk',
  },
  {
    name: 'sanction_linked',
    share: 2,
    schemata: w<TargetSchema>([
      ['Company', 60],
      ['Person', 30],
      ['LegalEntity', 10],
    ]),
    topics: w([[['sanction.linked'], 1]]),
    datasets: ENRICHMENT_DATASETS,
    extraDatasets: 1.3,
    ids: 'prefixed',
  },
  {
    name: 'debarment',
    share: 8,
    schemata: w<TargetSchema>([
      ['Company', 50],
      ['Person', 40],
      ['LegalEntity', 10],
    ]),
    topics: w([[['debarment'], 1]]),
    datasets: DEBARMENT_DATASETS,
    extraDatasets: 1.2,
    ids: 'prefixed',
  },
  {
    name: 'crime',
    share: 6,
    schemata: w([['Person', 1]]),
    topics: w<readonly string[]>([
      [['crime'], 30],
      [['wanted', 'crime'], 50],
      [['crime.fraud'], 10],
      [['crime.terror', 'wanted'], 5],
      [['crime.traffick'], 5],
    ]),
    datasets: CRIME_DATASETS,
    extraDatasets: 1.1,
    ids: 'prefixed',
  },
  {
    name: 'poi',
    share: 6,
    schemata: w<TargetSchema>([
      ['Person', 75],
      ['Organization', 25],
    ]),
    topics: w([[['poi'], 1]]),
    datasets: POI_DATASETS,
    extraDatasets: 1.1,
    ids: 'prefixed',
  },
  {
    name: 'export_control',
    share: 1.5,
    schemata: w<TargetSchema>([
      ['Company', 70],
      ['Organization', 20],
      ['Person', 10],
    ]),
    topics: w([[['export.control'], 1]]),
    datasets: EXPORT_CONTROL_DATASETS,
    extraDatasets: 1.5,
    ids: 'nk',
  },
  {
    name: 'regulatory',
    share: 6,
    schemata: w<TargetSchema>([
      ['Person', 55],
      ['Company', 45],
    ]),
    topics: w<readonly string[]>([
      [['corp.disqual'], 60],
      [['reg.warn'], 30],
      [['reg.action'], 10],
    ]),
    datasets: REGULATORY_DATASETS,
    extraDatasets: 1.05,
    ids: 'prefixed',
  },
  {
    name: 'state_owned',
    share: 1.5,
    schemata: w<TargetSchema>([
      ['Company', 60],
      ['PublicBody', 40],
    ]),
    topics: w<readonly string[]>([
      [['gov.soe'], 60],
      [['gov.national'], 40],
    ]),
    datasets: STATE_OWNED_DATASETS,
    extraDatasets: 1.1,
    ids: 'prefixed',
  },
];

export const PROFILE_MIX = new Weighted(PROFILES.map((profile) => [profile, profile.share] as const));

/**
 * Countries, weighted for the whole collection: PEP data covers most of the world, the
 * sanctions weigh toward a few countries. ISO 3166-1 alpha-2, lower case as FtM writes them.
 */
export const COUNTRIES = new Weighted<string>(
  (
    [
      ['ru', 14],
      ['us', 8],
      ['ua', 6],
      ['br', 6],
      ['cn', 4],
      ['ir', 3],
      ['in', 4],
      ['gb', 3],
      ['de', 2],
      ['fr', 2],
      ['co', 3],
      ['ar', 2],
      ['ng', 2],
      ['mx', 2],
      ['id', 2],
      ['tr', 2],
      ['sy', 1.5],
      ['kp', 1],
      ['by', 2],
      ['kz', 1],
      ['ae', 1],
      ['sa', 1],
      ['iq', 1],
      ['af', 1],
      ['pk', 1],
      ['lb', 1],
      ['ve', 1],
      ['cu', 0.5],
      ['mm', 0.5],
      ['it', 1],
      ['es', 1],
      ['pl', 1],
      ['za', 1],
      ['ke', 1],
      ['eg', 1],
      ['ph', 1],
      ['jp', 1],
      ['kr', 1],
      ['cy', 0.5],
      ['ch', 0.5],
    ] as const
  ).map(([code, weight]) => [code, weight] as const),
);

/** Who imposes the sanctions of a sanctions dataset, for its Sanction entities. */
export const SANCTION_AUTHORITIES: Readonly<Record<string, readonly [string, string, readonly string[]]>> = {
  us_ofac_sdn: [
    'Office of Foreign Assets Control',
    'us',
    ['RUSSIA-EO14024', 'SDGT', 'IRAN', 'UKRAINE-EO13660'],
  ],
  us_ofac_cons: ['Office of Foreign Assets Control', 'us', ['NS-MBS LIST', 'SSI']],
  un_sc_sanctions: ['United Nations Security Council', 'zz', ['ISIL (Da’esh) & Al-Qaida', 'DPRK', 'Libya']],
  eu_fsf: ['European Commission', 'eu', ['RUS', 'BLR', 'IRN', 'SYR']],
  gb_hmt_sanctions: ['HM Treasury', 'gb', ['Russia', 'Global Human Rights', 'Cyber']],
  gb_fcdo_sanctions: ['Foreign, Commonwealth & Development Office', 'gb', ['Russia', 'Belarus']],
  ch_seco_sanctions: ['State Secretariat for Economic Affairs', 'ch', ['Ukraine', 'Syria']],
  ua_nsdc_sanctions: ['National Security and Defense Council', 'ua', ['NSDC decision']],
  ua_war_sanctions: ['War and Sanctions portal', 'ua', ['War and Sanctions']],
  ca_dfatd_sema_sanctions: ['Global Affairs Canada', 'ca', ['Russia Regulations', 'Belarus Regulations']],
  au_dfat_sanctions: [
    'Department of Foreign Affairs and Trade',
    'au',
    ['Autonomous (Russia)', 'UNSC (DPRK)'],
  ],
  jp_mof_sanctions: ['Ministry of Finance', 'jp', ['Russia', 'North Korea']],
  fr_tresor_gels_avoir: ['Direction générale du Trésor', 'fr', ['Russie', 'Terrorisme']],
  be_fod_sanctions: ['FPS Finance', 'be', ['National terrorist list']],
  nz_russia_sanctions: ['Ministry of Foreign Affairs and Trade', 'nz', ['Russia Sanctions Act']],
  mc_fund_freezes: ['Direction du Budget et du Trésor', 'mc', ['Gel des fonds']],
  us_trade_csl: ['International Trade Administration', 'us', ['Entity List', 'SDN']],
  il_mod_terrorists: ['Ministry of Defense', 'il', ['Terror organization']],
  kz_afmrk_sanctions: ['Financial Monitoring Agency', 'kz', ['Terrorist list']],
};

export const POSITION_ROLES = [
  'Member of the National Assembly',
  'Member of Parliament',
  'Minister of Finance',
  'Minister of Defence',
  'Deputy Minister of Energy',
  'Governor',
  'Mayor',
  'Judge of the Supreme Court',
  'Ambassador',
  'Member of the City Council',
  'Head of the Regional Administration',
  'Senator',
  'Member of the Central Bank Board',
  'General Director of a state-owned enterprise',
  'Prosecutor General',
  'Member of the State Duma',
  'Member of the Regional Legislature',
  'Chief of General Staff',
] as const;

export const LEGAL_FORMS = ['LLC', 'LTD', 'JSC', 'OOO', 'AO', 'GMBH', 'SA', 'LIMITED', 'CO', 'INC', 'FZE'];
