import { type QueryFacts, type RecordFacts, weighFacts } from '../matching/index.js';
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
