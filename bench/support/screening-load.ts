import { loadListEntities } from '../matching/list-names.js';
import { makeQueries } from '../matching/queries.js';
import { apiCall, type RunningService } from './service.js';

/**
 * `POST /v1/screen` bodies, no two alike (so none is a cache hit): misspelt, reordered and
 * transliterated listed names and unrelated names (bench/matching/queries.ts), each 2 to 500
 * characters as the API accepts, two thirds screened as persons and one third as entities. The
 * same seed gives the same bodies.
 */
export function distinctScreeningBodies(count: number, seed: number): string[] {
  const queries = makeQueries(loadListEntities(), count * 2, seed).filter(
    (q) => [...q.trim()].length >= 2 && [...q.trim()].length <= 500,
  );
  return [...new Set(queries)]
    .slice(0, count)
    .map((query, i) => JSON.stringify({ query, type: i % 3 === 2 ? 'entity' : 'person' }));
}

/** Puts the bootstrap account on the unlimited plan without a rate limit: a bench measures screening, not refusals. */
export async function liftAccountLimits(service: RunningService): Promise<void> {
  const accounts = await apiCall<{ data: { id: string }[] }>(
    service,
    service.adminToken,
    'GET',
    '/admin/v1/accounts',
  );
  await apiCall(service, service.adminToken, 'PATCH', `/admin/v1/accounts/${accounts.data[0]!.id}`, {
    plan: 'enterprise',
    rate_limit_per_minute: 1_000_000,
  });
}
