import type { Config } from '../../config.js';

/** What the remote providers need from the configuration (keys stay here, never in logs). */
export interface ProviderSettings {
  timeoutMs: number;
  concurrency: number;
  gdelt: { enabled: boolean; url: string; timespanMonths: number };
  opensanctionsApi: { enabled: boolean; url: string; apiKey: string | undefined; dataset: string };
  companiesHouse: { url: string; apiKey: string | undefined };
  gleif: { enabled: boolean; url: string };
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
