import type { QueryFacts } from '../matching/index.js';
import type { EffectiveOptions, QueryType } from './screening-result.js';

/**
 * What a screening was asked, as it was screened: the record an audit needs beside the answer
 * (`request` in every answer, stored with the result). The facts as checked (country codes upper
 * case, `UK` as `GB`, duplicates dropped, identifiers trimmed) and the options after defaults (the
 * threshold applied, the sources selected that apply to the type). Everything in it is part of the
 * result cache's key, so a cached answer reports exactly the request it answers.
 */
export interface ScreenedRequest {
  /** The name as given, without the characters that show nothing, trimmed; null when only identifiers were given. */
  query: string | null;
  type: QueryType;
  date_of_birth: string | null;
  countries: string[];
  identifiers: { type: string; value: string; country?: string }[];
  options: EffectiveOptions;
}

export function screenedRequest(
  query: string | null,
  type: QueryType,
  facts: QueryFacts,
  options: EffectiveOptions,
): ScreenedRequest {
  return {
    query,
    type,
    date_of_birth: facts.dateOfBirth ?? null,
    countries: [...(facts.countries ?? [])],
    identifiers: (facts.identifiers ?? []).map((id) => ({
      type: id.type,
      value: id.value,
      ...(id.country !== undefined ? { country: id.country } : {}),
    })),
    options,
  };
}
