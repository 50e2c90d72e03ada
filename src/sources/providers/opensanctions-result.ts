import { nameTypeAdjusted } from '../../matching/entity-score.js';
import { compareNames, type EntityMatch } from '../../matching/index.js';
import { readFtmEntity } from '../entity-building/ftm-entity.js';
import { FtmGraph } from '../entity-building/ftm-graph.js';
import { toListEntity } from '../entity-building/ftm-mapping.js';
import type { Flag } from '../flag.js';
import { identifierMatch, weighed } from '../flag-facts.js';
import type { EntityName, ListEntity, RawRecord } from '../list-entity.js';
import type { FlagContext } from '../list-flag.js';
import { entityKey } from '../matchable-entity.js';
import { OPENSANCTIONS_SOURCE } from '../opensanctions-datasets.js';
import type { SourceQuery } from '../source.js';
import { watchlistFlag } from '../watchlist-flag.js';

/**
 * One candidate of a yente `/match` answer. yente answers with FollowTheMoney entities, the very
 * records of OpenSanctions' bulk export, so each is read into the common entity model by the bulk
 * mode's own mapping: a given entity then gives the same names, list and flag in both modes.
 */
export interface YenteCandidate {
  entity: ListEntity;
  /** yente's own score (its algorithm, its calibration), kept apart as `provider_score`. */
  score: number | null;
}

/** At most this many names of one entity are scored: some carry dozens of translations. */
export const MAX_NAMES_SCORED = 60;

/**
 * What yente adds to an entity to score it (`ScoredEntityResponse`); left out of the record the
 * flag keeps (`source_record`), which is then the FtM entity as in bulk mode.
 */
const YENTE_SCORING_FIELDS = new Set(['score', 'match', 'explanations', 'features', 'token']);

/**
 * The flag of one candidate when one of its names matches the query at or above the threshold:
 * the bulk mode's flag (`pep` or `watchlist`, the listing dataset, `confirms` of the official
 * lists enabled here), plus yente's score.
 */
export function opensanctionsFlag(
  candidate: YenteCandidate,
  query: SourceQuery,
  context: FlagContext,
): Flag | undefined {
  const match = query.identifiersOnly ? identifierMatch(candidate.entity) : bestName(candidate.entity, query);
  if (!match) return undefined;
  // The query's birth date, countries and identifiers weigh the match as for the lists themselves.
  const flag = weighed(watchlistFlag(candidate.entity, match, context), candidate.entity, query.facts);
  if (flag.match_score < query.threshold) return undefined;
  return { ...flag, details: { ...flag.details, provider_score: candidate.score } };
}

/**
 * The entity's name that matches the query best, scored by the service's own matcher so that the
 * score means what it means for the official lists (yente's candidates come from its own).
 */
function bestName(entity: ListEntity, query: SourceQuery): EntityMatch | undefined {
  let best: EntityMatch | undefined;
  for (const name of entity.names.slice(0, MAX_NAMES_SCORED)) {
    const compared = compareNames(query.entity, name.full, query.type, name.type);
    // Weak aliases count for less, exactly as in the list index (matching/entity-score.ts).
    const score = nameTypeAdjusted(compared.score, name.type);
    if (!best || score > best.score) {
      best = {
        key: entityKey(entity),
        source: entity.source,
        score,
        matchedName: matchableName(name),
        explanation: { ...compared.explanation, score },
      };
    }
  }
  return best;
}

function matchableName(name: EntityName): EntityMatch['matchedName'] {
  return name.script
    ? { full: name.full, type: name.type, script: name.script }
    : { full: name.full, type: name.type };
}

/**
 * The candidates of the answer to query `key`. yente answers `{responses: {key: {status, results,
 * total, query}}, limit}`; a missing response or a status other than 200 means it did not answer.
 * A result that is not an FtM entity, or has no name to screen, is left out.
 */
export function yenteResults(answer: unknown, key: string): YenteCandidate[] | { problem: string } {
  const body = record(record(record(answer)?.responses)?.[key]);
  if (!body) return { problem: 'the answer holds no response to the query' };
  if (body.status !== undefined && body.status !== 200)
    return { problem: `answered the query with status ${String(body.status)}` };
  if (!Array.isArray(body.results)) return { problem: 'the answer has no result list' };
  return body.results.flatMap((item) => yenteCandidate(item) ?? []);
}

function yenteCandidate(item: unknown): YenteCandidate | undefined {
  const raw = record(item);
  const ftm = raw && readFtmEntity(raw);
  if (!raw || !ftm) return undefined;
  const entityRecord = Object.fromEntries(
    Object.entries(raw).filter(([field]) => !YENTE_SCORING_FIELDS.has(field)),
  ) as RawRecord;
  // A graph of the one entity: what yente nests inside it (positions held, addresses) is joined in
  // as the bulk export's separate lines are.
  const graph = new FtmGraph();
  graph.add(ftm, entityRecord);
  const entity = toListEntity({ entity: ftm, raw: entityRecord }, graph, OPENSANCTIONS_SOURCE);
  if (!entity) return undefined;
  const score = typeof raw.score === 'number' && Number.isFinite(raw.score) ? raw.score : null;
  return { entity, score };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
