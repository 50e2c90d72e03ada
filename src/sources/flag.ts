/** The kinds of match a screening reports, from the strongest evidence to the weakest. */
export type FlagType = 'sanctions' | 'pep' | 'watchlist' | 'adverse_media';

/** One match of the screened name in one source. */
export interface Flag {
  type: FlagType;
  /** Source id, lowercase snake case (`ofac_sdn`, `opensanctions`, ...). */
  source: string;
  /** List or programme, upper snake case (`SDN`, `EU_CONSOLIDATED`, ...). */
  list: string;
  /** 0 to 1; 1.0 exactly when the prepared query equals a prepared name of the entity. */
  match_score: number;
  details: Record<string, unknown>;
  /**
   * The hash of `details.source_record` (`listRecordHash`), when the source has it at hand (a list
   * version remembers each record's): `identifyFlags` takes it as the flag's `record_hash` instead
   * of working it out, and the answer does not carry this field.
   */
  recordHash?: string;
}
