/** What the remote providers need from the configuration (keys stay here, never in logs). */
export interface ProviderSettings {
  timeoutMs: number;
  concurrency: number;
  gdelt: { enabled: boolean; url: string; timespanMonths: number };
  opensanctionsApi: { enabled: boolean; url: string; apiKey: string | undefined; dataset: string };
  companiesHouse: { url: string; apiKey: string | undefined };
  gleif: { enabled: boolean; url: string };
}
