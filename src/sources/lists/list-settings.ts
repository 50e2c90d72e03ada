import { type Config, openSanctionsMode } from '../../config.js';
import { OPENSANCTIONS_SOURCE } from '../opensanctions-datasets.js';
import { LIST_CATALOG } from './list-catalog.js';
import type { ListServiceOptions } from './list-service.js';

export type ListSettings = Omit<
  ListServiceOptions<unknown>,
  'db' | 'databaseKind' | 'clock' | 'logger' | 'indexer'
>;

/**
 * The list service's settings from the configuration (`LISTS_*`, `LIST_URL_*`). OpenSanctions'
 * export is loaded as one more list in bulk mode only, apart from `LISTS_ENABLED`: that setting
 * names the official lists, and `LISTS_ENABLED=all` must not switch on data that needs a licence.
 */
export function listSettingsFromConfig(config: Config): ListSettings {
  const urlOverrides: Record<string, string | undefined> = {};
  for (const entry of LIST_CATALOG) urlOverrides[entry.id] = config[entry.urlConfigKey];
  const bulk = openSanctionsMode(config) === 'bulk';
  return {
    enabled: bulk ? [...config.listsEnabled, OPENSANCTIONS_SOURCE] : config.listsEnabled,
    listsDir: config.listsDir,
    urlOverrides,
    refreshIntervalMinutes: config.listsRefreshIntervalMinutes,
    downloadTimeoutMs: config.listsDownloadTimeoutSeconds * 1000,
    maxDownloadBytes: config.listsMaxDownloadMb * 1024 * 1024,
  };
}
