import { loadListEntities } from '../matching/list-names.js';
import { makeQueries } from '../matching/queries.js';

/**
 * `POST /v1/screen` bodies, no two alike (so none is a cache hit): misspelt, reordered and
 * transliterated listed names and unrelated names (bench/matching/queries.ts), each 2 to 500
 * characters as the API accepts, two thirds screened as persons and one third as entities. The
 * same seed gives the same bodies. The listed names come from the list files of `listsDir`.
 */
export function distinctScreeningBodies(listsDir: string, count: number, seed: number): string[] {
  const queries = makeQueries(loadListEntities(listsDir), count * 2, seed).filter(
    (q) => [...q.trim()].length >= 2 && [...q.trim()].length <= 500,
  );
  return [...new Set(queries)]
    .slice(0, count)
    .map((query, i) => JSON.stringify({ query, type: i % 3 === 2 ? 'entity' : 'person' }));
}
