import { birthDateAgreement } from './birth-dates.js';
import { normaliseIdentifier } from './identifiers.js';

/**
 * What a screening knows of its party besides the name, and what a listed record states: birth
 * dates, countries and identifiers confirm a name match or rule it out. Pure and deterministic.
 *
 * - An identifier of the same kind and value (and issuing country, where both give one) is the
 *   same party whatever the names: the match scores 1.0.
 * - A passport or national id of the same kind and issuing country but another value is strong
 *   evidence of another person (IDENTITY_DOCUMENT_MISMATCH_FACTOR, applied last).
 * - A birth date that contradicts every birth date of the record (at the precision both give, a
 *   year either way for a year alone or a range) scales the match by BIRTH_DATE_MISMATCH_FACTOR,
 *   so that a name match alone stays `medium` at most; one that agrees adds BIRTH_DATE_AGREEMENT
 *   to a fuzzy match. The same full date on both sides is rare between strangers, so it closes
 *   SAME_BIRTH_DAY_SHARE of the gap between a fuzzy match and 1.0 instead: any name match at the
 *   default threshold with the record's own full birth date is `high` (birth-dates.ts).
 * - Countries: one in common adds COUNTRY_AGREEMENT; a record whose nationality is known and
 *   shares none with the query is scaled by NATIONALITY_MISMATCH_FACTOR, less than a birth date
 *   since lists often leave a nationality out.
 * Unknown on either side changes nothing.
 */
export const BIRTH_DATE_MISMATCH_FACTOR = 0.7;
export const BIRTH_DATE_AGREEMENT = 0.05;
/** From the default threshold's 0.5 to the 0.8 at which a sanctions flag is `high` (risk.ts). */
export const SAME_BIRTH_DAY_SHARE = 0.6;
export const NATIONALITY_MISMATCH_FACTOR = 0.9;
export const COUNTRY_AGREEMENT = 0.02;
export const IDENTITY_DOCUMENT_MISMATCH_FACTOR = 0.6;
/**
 * A record that states no birth date cannot be confirmed by the one a screening gives: a fuzzy
 * name match on it stays below `high` (a sanctions flag is high from 0.8, risk.ts) unless the name
 * itself scores NEAR_EXACT_NAME or more.
 */
export const UNDATED_RECORD_CEILING = 0.79;
export const NEAR_EXACT_NAME = 0.95;
/** A fuzzy name match never reaches the 1.0 of an exact one through agreeing facts. */
const FUZZY_CEILING = 0.99;

export interface FactIdentifier {
  type: string;
  value: string;
  country?: string | undefined;
}

export interface QueryFacts {
  /** `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  dateOfBirth?: string | undefined;
  /** ISO 3166-1 alpha-2, upper case. */
  countries?: readonly string[] | undefined;
  identifiers?: readonly FactIdentifier[] | undefined;
}

export interface RecordFacts {
  /** As the entity model writes them: `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or a range `FROM/TO`. */
  birthDates: readonly string[];
  nationalities: readonly string[];
  /** Every country linked to the record (nationality, address, registration, flag). */
  countries: readonly string[];
  identifiers: readonly FactIdentifier[];
}

export type FactField = 'date_of_birth' | 'countries' | 'identifiers';

export interface FactOutcome {
  field: FactField;
  /** `near`: a birth date as another record of the same birth may state it (birth-dates.ts): no effect. */
  outcome: 'match' | 'near' | 'mismatch' | 'unknown';
  /** What it did to the score, as a short phrase (`set to 1.0`, `x0.7`, `+0.05`, `capped at 0.79`, `none`). */
  effect: string;
  /** The record's values it was compared with, when it has any. */
  compared_with?: string[];
}

export interface WeighedMatch {
  score: number;
  outcomes: FactOutcome[];
}

/** The name score adjusted by the facts, and how each field of the query came out. */
export function weighFacts(nameScore: number, query: QueryFacts, record: RecordFacts): WeighedMatch {
  const outcomes: FactOutcome[] = [];
  let score = nameScore;
  const ids = compareIdentifiers(query.identifiers ?? [], record.identifiers);
  if (ids) {
    outcomes.push(ids.outcome);
    if (ids.outcome.outcome === 'match') score = 1;
  }
  const identified = ids?.outcome.outcome === 'match';
  let undated: FactOutcome | undefined;
  if (query.dateOfBirth !== undefined) {
    const agreement = birthDateAgreement(query.dateOfBirth, record.birthDates);
    const outcome = agreement === 'same day' ? 'match' : agreement;
    const before = score;
    if (!identified && outcome === 'mismatch') score *= BIRTH_DATE_MISMATCH_FACTOR;
    if (!identified && outcome === 'match' && score < 1) {
      const raised =
        agreement === 'same day' ? score + (1 - score) * SAME_BIRTH_DAY_SHARE : score + BIRTH_DATE_AGREEMENT;
      score = Math.min(FUZZY_CEILING, raised);
    }
    const dated: FactOutcome = {
      field: 'date_of_birth',
      outcome,
      effect:
        identified || outcome === 'unknown' || outcome === 'near'
          ? 'none'
          : agreement === 'same day'
            ? raisedBy(before, score)
            : effectOf(outcome, BIRTH_DATE_MISMATCH_FACTOR, BIRTH_DATE_AGREEMENT, nameScore),
      ...(record.birthDates.length > 0 ? { compared_with: [...record.birthDates] } : {}),
    };
    outcomes.push(dated);
    if (!identified && outcome === 'unknown' && nameScore < NEAR_EXACT_NAME) undated = dated;
  }
  if (query.countries !== undefined && query.countries.length > 0) {
    const outcome = compareCountries(query.countries, record);
    if (!identified && outcome === 'mismatch') score *= NATIONALITY_MISMATCH_FACTOR;
    if (!identified && outcome === 'match' && score < 1)
      score = Math.min(FUZZY_CEILING, score + COUNTRY_AGREEMENT);
    const known = [...new Set([...record.nationalities, ...record.countries])];
    outcomes.push({
      field: 'countries',
      outcome,
      effect:
        identified || outcome === 'unknown'
          ? 'none'
          : effectOf(outcome, NATIONALITY_MISMATCH_FACTOR, COUNTRY_AGREEMENT, nameScore),
      ...(known.length > 0 ? { compared_with: known } : {}),
    });
  }
  // After the countries, so that an agreeing country does not lift it back to high.
  if (undated && score > UNDATED_RECORD_CEILING) {
    score = UNDATED_RECORD_CEILING;
    undated.effect = `capped at ${UNDATED_RECORD_CEILING}`;
  }
  // Last, so that no agreeing birth date or country undoes another person's identity document.
  if (ids?.documentMismatch) score *= IDENTITY_DOCUMENT_MISMATCH_FACTOR;
  return { score: Math.min(1, score), outcomes };
}

function effectOf(outcome: 'match' | 'mismatch', factor: number, raise: number, nameScore: number): string {
  if (outcome === 'mismatch') return `x${factor}`;
  return nameScore >= 1 ? 'none' : `+${raise}`;
}

/** What a raise did, to two decimals (`+0.21`), or `none` for an exact match. */
function raisedBy(before: number, after: number): string {
  return after > before ? `+${(after - before).toFixed(2)}` : 'none';
}

/** The identifier kinds of a query that a record's kinds answer to (the entity model's names differ). */
const RECORD_TYPES_OF: Readonly<Record<string, readonly string[]>> = {
  passport: ['passport'],
  national_id: ['national_id'],
  tax_id: ['tax_id'],
  company_number: ['registration_number'],
  lei: ['lei'],
  bic: ['swift_bic'],
  imo: ['imo'],
  mmsi: ['mmsi'],
  call_sign: ['call_sign'],
  aircraft_registration: ['aircraft_tail_number', 'aircraft_serial'],
  crypto_wallet: ['crypto_address'],
};

/** Documents that identify one person: another number of the same kind and country is another person. */
const IDENTITY_DOCUMENTS: ReadonlySet<string> = new Set(['passport', 'national_id']);

/** Whether a query identifier of `queryType` may be compared with a record identifier of `recordType`. */
export function identifierKindsMeet(queryType: string, recordType: string): boolean {
  const kinds = RECORD_TYPES_OF[queryType];
  return kinds === undefined ? true : kinds.includes(recordType);
}

function compareIdentifiers(
  query: readonly FactIdentifier[],
  record: readonly FactIdentifier[],
): { outcome: FactOutcome; documentMismatch: boolean } | undefined {
  if (query.length === 0) return undefined;
  let documentMismatch = false;
  const compared: string[] = [];
  for (const q of query) {
    const value = normaliseIdentifier(q.type, q.value);
    for (const r of record) {
      if (!identifierKindsMeet(q.type, r.type)) continue;
      compared.push(`${r.type}:${r.value}`);
      const countriesAgree = q.country === undefined || r.country === undefined || q.country === r.country;
      if (countriesAgree && normaliseIdentifier(q.type, r.value) === value) {
        return {
          outcome: {
            field: 'identifiers',
            outcome: 'match',
            effect: 'set to 1.0',
            compared_with: [`${r.type}:${r.value}`],
          },
          documentMismatch: false,
        };
      }
      if (IDENTITY_DOCUMENTS.has(q.type) && q.country !== undefined && q.country === r.country)
        documentMismatch = true;
    }
  }
  const outcome: FactOutcome = documentMismatch
    ? { field: 'identifiers', outcome: 'mismatch', effect: `x${IDENTITY_DOCUMENT_MISMATCH_FACTOR}` }
    : { field: 'identifiers', outcome: compared.length > 0 ? 'mismatch' : 'unknown', effect: 'none' };
  if (compared.length > 0) outcome.compared_with = compared;
  return { outcome, documentMismatch };
}

function compareCountries(query: readonly string[], record: RecordFacts): 'match' | 'mismatch' | 'unknown' {
  const linked = new Set([...record.nationalities, ...record.countries]);
  if (query.some((c) => linked.has(c))) return 'match';
  // Only a stated nationality contradicts: an address abroad says nothing of it.
  const nationalities = record.nationalities.filter((c) => /^[A-Z]{2}$/.test(c));
  return nationalities.length > 0 ? 'mismatch' : 'unknown';
}
