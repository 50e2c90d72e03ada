import { LIST_REGISTRY } from '../sources/lists/list-registry.js';
import { PROVIDER_IDS } from '../sources/providers/providers.js';

/**
 * Every source id the service knows (the lists of the list registry, then the remote providers),
 * configured here or not. A request may name any of them in `options.sources`; one that is not
 * configured on this instance is simply not queried. OpenSanctions is both a list and a provider,
 * under one id.
 */
export const KNOWN_SOURCE_IDS: readonly string[] = [
  ...new Set([...LIST_REGISTRY.map((entry) => entry.id), ...PROVIDER_IDS]),
];

export function isKnownSourceId(id: string): boolean {
  return KNOWN_SOURCE_IDS.includes(id);
}
