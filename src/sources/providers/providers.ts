import type { Clock } from '../../clock.js';
import { CompaniesHouseAdapter } from './companies-house.js';
import { GdeltAdapter } from './gdelt.js';
import { GleifAdapter, type OfficialLists } from './gleif.js';
import { OpenSanctionsApiAdapter } from './opensanctions-api.js';
import { ProviderHttp } from './provider-http.js';
import type { ProviderSettings } from './provider-settings.js';
import { type ProviderAdapter, ProviderSource } from './provider-source.js';

/** The remote providers' source ids, in the order they are built. */
export const PROVIDER_IDS = ['opensanctions', 'gdelt', 'uk_companies_house', 'gleif'] as const;

/** The official lists (`OfficialLists`) are what GLEIF screens the parents it finds against. */
export interface ProviderDeps extends OfficialLists {
  clock: Clock;
  settings: ProviderSettings;
  /** Ids of the lists enabled on this instance (what an OpenSanctions entry `confirms`). */
  enabledLists: () => readonly string[];
}

/**
 * The remote providers configured on this instance, each behind its own circuit breaker, built once
 * at start (the breakers and health samples live as long as the process). A provider that needs a
 * key it was not given is not built: it is then neither queried nor reported.
 */
export function buildProviderSources(deps: ProviderDeps): ProviderSource[] {
  const { settings } = deps;
  const http = (provider: string) =>
    new ProviderHttp({ provider, timeoutMs: settings.timeoutMs, concurrency: settings.concurrency });
  const adapters: ProviderAdapter[] = [];
  // Adapters are added here, one line each, in the order of PROVIDER_IDS.
  if (settings.opensanctionsApi.enabled)
    adapters.push(
      new OpenSanctionsApiAdapter(http('opensanctions'), settings.opensanctionsApi, deps.enabledLists),
    );
  if (settings.gdelt.enabled) adapters.push(new GdeltAdapter(http('gdelt'), settings.gdelt, deps.clock));
  if (settings.companiesHouse.apiKey)
    adapters.push(new CompaniesHouseAdapter(http('uk_companies_house'), settings));
  if (settings.gleif.enabled) adapters.push(new GleifAdapter(http('gleif'), settings, deps));
  return adapters.map(
    (adapter) => new ProviderSource(adapter, { clock: deps.clock, budgetMs: settings.timeoutMs }),
  );
}
