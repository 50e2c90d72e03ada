import { type Config, openSanctionsMode } from './config.js';
import { LIST_REGISTRY } from './sources/lists/list-registry.js';
import type { ListServiceOptions } from './sources/lists/list-service.js';
import { OPENSANCTIONS_SOURCE } from './sources/opensanctions-datasets.js';
import type { ProviderSettings } from './sources/providers/provider-settings.js';

/** What the list service needs from the configuration. */
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
  for (const entry of LIST_REGISTRY) urlOverrides[entry.id] = config[entry.url.key];
  const bulk = openSanctionsMode(config) === 'bulk';
  return {
    enabled: bulk ? [...config.listsEnabled, OPENSANCTIONS_SOURCE] : config.listsEnabled,
    listsDir: config.listsDir,
    urlOverrides,
    refreshIntervalMinutes: config.listsRefreshIntervalMinutes,
    maxAgeDays: config.listsMaxAgeDays,
    downloadTimeoutMs: config.listsDownloadTimeoutSeconds * 1000,
    maxDownloadBytes: config.listsMaxDownloadMb * 1024 * 1024,
  };
}

/** The provider settings of the configuration. */
export function providerSettingsFromConfig(config: Config, opensanctionsApiMode: boolean): ProviderSettings {
  return {
    timeoutMs: config.providerTimeoutMs,
    concurrency: config.providerConcurrency,
    gdelt: { enabled: config.gdeltEnabled, url: config.gdeltUrl, timespanMonths: config.gdeltTimespanMonths },
    opensanctionsApi: {
      enabled: opensanctionsApiMode,
      url: config.opensanctionsApiUrl,
      apiKey: config.opensanctionsApiKey,
      dataset: config.opensanctionsDataset,
    },
    companiesHouse: { url: config.companiesHouseUrl, apiKey: config.companiesHouseApiKey },
    gleif: { enabled: config.gleifEnabled, url: config.gleifUrl },
  };
}
