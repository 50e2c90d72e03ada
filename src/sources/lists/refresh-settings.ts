import type { RefresherSettings } from './list-refresher.js';
import { CSL_OFAC_NON_SDN_LISTS } from './parsers/index.js';
import type { ListParseSettings } from './snapshot-store.js';

/** Where the enabled lists come from and how they may be downloaded (`LISTS_*`, `LIST_URL_*`). */
export interface ListSourceSettings {
  /** Ids of the enabled lists (`LISTS_ENABLED`). */
  enabled: readonly string[];
  listsDir?: string | undefined;
  /** URL override per list id (`LIST_URL_*`). */
  urlOverrides?: Readonly<Record<string, string | undefined>>;
  downloadTimeoutMs: number;
  maxDownloadBytes: number;
}

/** How each enabled list is located, fetched and parsed. */
export function refresherSettings(options: ListSourceSettings): RefresherSettings {
  return {
    location: (entry) => ({ override: options.urlOverrides?.[entry.id], listsDir: options.listsDir }),
    parseSettings: (id) => parseSettings(id, options.enabled),
    downloadTimeoutMs: options.downloadTimeoutMs,
    maxDownloadBytes: options.maxDownloadBytes,
  };
}

// us_csl carries copies of OFAC's lists; they are skipped while OFAC's own lists are enabled,
// so one listing is not reported twice.
function parseSettings(listId: string, enabled: readonly string[]): ListParseSettings {
  if (listId !== 'us_csl') return {};
  const skipLists: string[] = [];
  if (enabled.includes('ofac_sdn')) skipLists.push('SDN');
  if (enabled.includes('ofac_cons')) skipLists.push(...CSL_OFAC_NON_SDN_LISTS);
  return { skipLists };
}
