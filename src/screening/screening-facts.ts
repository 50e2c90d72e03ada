import type { FieldError } from '../errors.js';
import type { FactIdentifier, QueryFacts } from '../matching/index.js';
import { identifierProblem } from './identifier-checks.js';
import type { QueryType } from './screening-result.js';

/** What a request may say of its party besides the name (issue: structured screening). */
export interface ScreeningFactsRequest {
  date_of_birth?: string | undefined;
  countries?: string[] | undefined;
  identifiers?: { type: string; value: string; country?: string | undefined }[] | undefined;
}

export const IDENTIFIER_TYPES = [
  'passport',
  'national_id',
  'tax_id',
  'company_number',
  'lei',
  'bic',
  'imo',
  'mmsi',
  'call_sign',
  'aircraft_registration',
  'crypto_wallet',
  'other',
] as const;
export const FACT_LIST_MAX = 10;
export const IDENTIFIER_VALUE_MAX_CHARS = 200;

const DATE = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/;
/** ICU region codes that are not countries (`EU`, `UN`, ...): refused like unknown codes. */
const NOT_COUNTRIES: ReadonlySet<string> = new Set(['EU', 'EZ', 'UN', 'QO', 'ZZ']);
const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** Whether `code` (upper case) is an ISO 3166-1 alpha-2 code of a country or territory. */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !NOT_COUNTRIES.has(code) && regionNames.of(code) !== code;
}

/**
 * The request's facts checked and normalised (country codes upper case, `UK` as `GB`), or the
 * field errors: a malformed, impossible or future date, an unknown country code, an identifier
 * that cannot be one of its kind (identifier-checks.ts; an IMO number's check digit is checked
 * when the screening's `queryType` is `vessel`). `today` is `YYYY-MM-DD` (UTC).
 */
export function resolveScreeningFacts(
  request: ScreeningFactsRequest,
  today: string,
  queryType?: QueryType,
): { facts: QueryFacts; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const facts: QueryFacts = {};
  if (request.date_of_birth !== undefined) {
    const problem = dateProblem(request.date_of_birth, today);
    if (problem) errors.push({ pointer: '/date_of_birth', detail: problem });
    else facts.dateOfBirth = request.date_of_birth;
  }
  if (request.countries !== undefined) {
    const codes = request.countries.map((c) => {
      const upper = c.trim().toUpperCase();
      return upper === 'UK' ? 'GB' : upper;
    });
    codes.forEach((code, k) => {
      if (!isCountryCode(code))
        errors.push({
          pointer: `/countries/${k}`,
          detail: `${JSON.stringify(request.countries![k])} is not an ISO 3166-1 alpha-2 country code`,
        });
    });
    if (codes.length > 0) facts.countries = [...new Set(codes)];
  }
  if (request.identifiers !== undefined) {
    const identifiers: FactIdentifier[] = [];
    request.identifiers.forEach((id, k) => {
      const value = id.value.trim();
      const problem = value === '' ? 'must not be empty' : identifierProblem(id.type, value, queryType);
      if (problem) errors.push({ pointer: `/identifiers/${k}/value`, detail: problem });
      let country: string | undefined;
      if (id.country !== undefined) {
        country = id.country.trim().toUpperCase();
        if (country === 'UK') country = 'GB';
        if (!isCountryCode(country))
          errors.push({
            pointer: `/identifiers/${k}/country`,
            detail: `${JSON.stringify(id.country)} is not an ISO 3166-1 alpha-2 country code`,
          });
      }
      identifiers.push({ type: id.type, value, ...(country ? { country } : {}) });
    });
    if (identifiers.length > 0) facts.identifiers = identifiers;
  }
  return { facts, errors };
}

function dateProblem(value: string, today: string): string | undefined {
  const parts = DATE.exec(value);
  if (!parts) return 'must be YYYY, YYYY-MM or YYYY-MM-DD';
  const [, year, month, day] = parts;
  if (Number(year) < 1800) return 'must be a year from 1800';
  if (month !== undefined && (Number(month) < 1 || Number(month) > 12)) return 'has no such month';
  if (day !== undefined) {
    const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day))
      return 'has no such day';
  }
  if (value > today.slice(0, value.length)) return 'is in the future';
  return undefined;
}

/** Whether any fact was given (facts change the answer, and the cache key). */
export function hasFacts(facts: QueryFacts): boolean {
  return facts.dateOfBirth !== undefined || facts.countries !== undefined || facts.identifiers !== undefined;
}
