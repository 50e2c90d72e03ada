/**
 * A list a screening searched although it is stale (published longer ago than its maximum age,
 * or not confirmed current for too long): one entry of the answer's `sources_stale`.
 */
export interface StaleSource {
  source: string;
  /** The list's publication date (`YYYY-MM-DD`), when known. */
  list_date: string | null;
  /** Whole days from `list_date` to the screening. */
  list_age_days: number | null;
}
