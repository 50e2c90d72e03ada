import { type EntityMatch, type QueryFacts, type RecordFacts, weighFacts } from '../matching/index.js';
import type { Flag } from './flag.js';
import type { ListEntity } from './list-entity.js';

/** What a record states that a screening's facts are compared with. */
export function recordFacts(entity: ListEntity): RecordFacts {
  return {
    birthDates: entity.birth_dates,
    nationalities: entity.nationalities ?? [],
    countries: entity.countries,
    identifiers: entity.identifiers,
  };
}

/** The flag with its match score weighed by the query's facts, and each field's outcome explained. */
export function weighed(flag: Flag, entity: ListEntity, facts: QueryFacts | undefined): Flag {
  if (!facts) return flag;
  const { score, outcomes } = weighFacts(flag.match_score, facts, recordFacts(entity));
  const explanation = flag.details.match_explanation as Record<string, unknown>;
  return {
    ...flag,
    match_score: score,
    details: { ...flag.details, match_explanation: { ...explanation, secondary: outcomes } },
  };
}

/** A record found by an identifier alone: its primary name, no name comparison. */
export function identifierMatch(entity: ListEntity): EntityMatch {
  const name = entity.names[0] ?? { full: entity.source_id, type: 'primary' as const };
  return {
    key: `${entity.source}:${entity.source_id}`,
    source: entity.source,
    score: 0,
    matchedName: { full: name.full, type: name.type },
    explanation: {
      matchedName: name.full,
      nameType: name.type,
      method: 'identifier',
      preparedQuery: '',
      preparedName: '',
      pairs: [],
      unmatchedQuery: [],
      unmatchedName: [],
      penalties: [],
      score: 0,
    },
  };
}
