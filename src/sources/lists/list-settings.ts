import type { Config } from '../../config.js';
import { LIST_CATALOG } from './list-catalog.js';
import type { ListServiceOptions } from './list-service.js';

export type ListSettings = Omit<
  ListServiceOptions<unknown>,
  'db' | 'databaseKind' | 'clock' | 'logger' | 'buildIndex'
>;

/** The list service's settings from the configuration (`LISTS_*`, `LIST_URL_*`). */
export function listSettingsFromConfig(config: Config): ListSettings {
  const urlOverrides: Record<string, string | undefined> = {};
  for (const entry of LIST_CATALOG) urlOverrides[entry.id] = config[entry.urlConfigKey];
  return {
    enabled: config.listsEnabled,
    listsDir: config.listsDir,
    urlOverrides,
    refreshIntervalMinutes: config.listsRefreshIntervalMinutes,
    downloadTimeoutMs: config.listsDownloadTimeoutSeconds * 1000,
    maxDownloadBytes: config.listsMaxDownloadMb * 1024 * 1024,
  };
}
