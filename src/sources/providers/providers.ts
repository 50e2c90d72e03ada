import type { Clock } from '../../clock.js';
import type { Flag } from '../flag.js';
import type { SourceQuery } from '../source.js';
import { CompaniesHouseAdapter } from './companies-house.js';
import { GdeltAdapter } from './gdelt.js';
import { GleifAdapter } from './gleif.js';
import { OpenSanctionsApiAdapter } from './opensanctions-api.js';
import { ProviderHttp } from './provider-http.js';
import type { ProviderSettings } from './provider-settings.js';
import { type ProviderAdapter, ProviderSource } from './provider-source.js';

export interface ProviderDeps {
  clock: Clock;
  settings: ProviderSettings;
  /** Screens a name against the official lists loaded on this instance (GLEIF's listed parents). */
  screenOfficialLists: (query: SourceQuery, signal: AbortSignal) => Promise<Flag[]>;
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
  // Adapters are added here, one line each, in the order of DESIGN.md §5's source list.
  if (settings.opensanctionsApi.enabled)
    adapters.push(new OpenSanctionsApiAdapter(http('opensanctions'), settings.opensanctionsApi));
  if (settings.gdelt.enabled) adapters.push(new GdeltAdapter(http('gdelt'), settings.gdelt, deps.clock));
  if (settings.companiesHouse.apiKey)
    adapters.push(new CompaniesHouseAdapter(http('uk_companies_house'), settings));
  if (settings.gleif.enabled)
    adapters.push(new GleifAdapter(http('gleif'), settings, deps.screenOfficialLists));
  return adapters.map(
    (adapter) => new ProviderSource(adapter, { clock: deps.clock, budgetMs: settings.timeoutMs }),
  );
}
