import { normaliseIdentifier } from './identifiers.js';

/**
 * What a screening knows of its party besides the name, and what a listed record states: birth
 * dates, countries and identifiers confirm a name match or rule it out. Pure and deterministic.
 *
 * - An identifier of the same kind and value (and issuing country, where both give one) is the
 *   same party whatever the names: the match scores 1.0.
 * - A passport or national id of the same kind and issuing country but another value is strong
 *   evidence of another person (IDENTITY_DOCUMENT_MISMATCH_FACTOR).
 * - A birth date that contradicts every birth date of the record (at the precision both give, a
 *   year either way for a year alone or a range) scales the match by BIRTH_DATE_MISMATCH_FACTOR,
 *   so that a name match alone stays `medium` at most; one that agrees adds BIRTH_DATE_AGREEMENT
 *   to a fuzzy match.
 * - Countries: one in common adds COUNTRY_AGREEMENT; a record whose nationality is known and
 *   shares none with the query is scaled by NATIONALITY_MISMATCH_FACTOR, less than a birth date
 *   since lists often leave a nationality out.
 * Unknown on either side changes nothing.
 */
export const BIRTH_DATE_MISMATCH_FACTOR = 0.7;
export const BIRTH_DATE_AGREEMENT = 0.05;
export const NATIONALITY_MISMATCH_FACTOR = 0.9;
export const COUNTRY_AGREEMENT = 0.02;
export const IDENTITY_DOCUMENT_MISMATCH_FACTOR = 0.6;
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
  outcome: 'match' | 'mismatch' | 'unknown';
  /** What it did to the score, as a short phrase (`set to 1.0`, `x0.7`, `+0.05`, `none`). */
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
    else if (ids.documentMismatch) score *= IDENTITY_DOCUMENT_MISMATCH_FACTOR;
  }
  const identified = ids?.outcome.outcome === 'match';
  if (query.dateOfBirth !== undefined) {
    const outcome = compareBirthDate(query.dateOfBirth, record.birthDates);
    if (!identified && outcome === 'mismatch') score *= BIRTH_DATE_MISMATCH_FACTOR;
    if (!identified && outcome === 'match' && score < 1)
      score = Math.min(FUZZY_CEILING, score + BIRTH_DATE_AGREEMENT);
    outcomes.push({
      field: 'date_of_birth',
      outcome,
      effect:
        identified || outcome === 'unknown'
          ? 'none'
          : effectOf(outcome, BIRTH_DATE_MISMATCH_FACTOR, BIRTH_DATE_AGREEMENT, nameScore),
      ...(record.birthDates.length > 0 ? { compared_with: [...record.birthDates] } : {}),
    });
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
  return { score: Math.min(1, score), outcomes };
}

function effectOf(outcome: 'match' | 'mismatch', factor: number, raise: number, nameScore: number): string {
  if (outcome === 'mismatch') return `x${factor}`;
  return nameScore >= 1 ? 'none' : `+${raise}`;
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

/** The years (and, when stated, the day or month) a record's birth date covers. */
interface DateSpan {
  from: string;
  to: string;
  /** Precision of the coarser end: 4 (year), 7 (month) or 10 (day) characters. */
  precision: number;
}

const PARTIAL_DATE = /^\d{4}(-\d{2}(-\d{2})?)?$/;

function spanOf(date: string): DateSpan | undefined {
  const [from = '', to = from] = date.split('/');
  if (!PARTIAL_DATE.test(from) || !PARTIAL_DATE.test(to)) return undefined;
  return { from, to, precision: Math.min(from.length, to.length) };
}

/**
 * Whether the query's birth date agrees with any of the record's, compared at the precision both
 * give: to the day or month when both state it, else by year with a year either way (lists round
 * and write "circa"; a range counts as its years).
 */
export function compareBirthDate(query: string, record: readonly string[]): 'match' | 'mismatch' | 'unknown' {
  const spans = record.flatMap((date) => spanOf(date) ?? []);
  if (spans.length === 0) return 'unknown';
  for (const span of spans) {
    const precision = Math.min(query.length, span.precision);
    if (precision >= 7 && span.from === span.to) {
      if (query.slice(0, precision) === span.from.slice(0, precision)) return 'match';
      continue;
    }
    const year = Number(query.slice(0, 4));
    if (year >= Number(span.from.slice(0, 4)) - 1 && year <= Number(span.to.slice(0, 4)) + 1) return 'match';
  }
  return 'mismatch';
}

function compareCountries(query: readonly string[], record: RecordFacts): 'match' | 'mismatch' | 'unknown' {
  const linked = new Set([...record.nationalities, ...record.countries]);
  if (query.some((c) => linked.has(c))) return 'match';
  // Only a stated nationality contradicts: an address abroad says nothing of it.
  const nationalities = record.nationalities.filter((c) => /^[A-Z]{2}$/.test(c));
  return nationalities.length > 0 ? 'mismatch' : 'unknown';
}
