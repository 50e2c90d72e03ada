import type { Flag } from '../flag.js';
import type { SourceQuery } from '../source.js';
import { opensanctionsFlag, yenteResults } from './opensanctions-result.js';
import { ProviderError } from './provider-error.js';
import type { ProviderHttp } from './provider-http.js';
import type { ProviderSettings } from './provider-settings.js';
import type { ProviderAdapter } from './provider-source.js';

/** The key of our one query in a yente batch; yente echoes it back in `responses`. */
export const YENTE_QUERY_KEY = 'q1';

/**
 * The FollowTheMoney schema a query is matched as. `Organization` covers companies too;
 * `LegalEntity` is the parent of Person, Company and Organization, so an entity query also reaches
 * organisations that are not companies.
 */
export function yenteSchema(type: SourceQuery['type']): string {
  return YENTE_SCHEMAS[type];
}

const YENTE_SCHEMAS: Readonly<Record<SourceQuery['type'], string>> = {
  person: 'Person',
  organization: 'Organization',
  vessel: 'Vessel',
  aircraft: 'Airplane',
  entity: 'LegalEntity',
};

/**
 * The request yente's `POST /match/{dataset}` documents: a batch of query entities (here one, the
 * name as the example's `name` property) and, as query parameters, the `threshold` (yente returns
 * no candidate scored below it by its own algorithm) and the `limit`. The algorithm is left to the
 * server: a self-hosted yente may not offer the hosted API's current one.
 */
export function yenteMatchRequest(baseUrl: string, dataset: string, query: SourceQuery) {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const url = new URL(`match/${encodeURIComponent(dataset)}`, base);
  url.searchParams.set('threshold', String(query.threshold));
  url.searchParams.set('limit', String(query.limit));
  return {
    url,
    body: {
      queries: {
        [YENTE_QUERY_KEY]: { schema: yenteSchema(query.type), properties: yenteProperties(query) },
      },
    },
  };
}

/**
 * The query entity's FollowTheMoney properties: the name (unless only identifiers were given), and
 * the facts yente also scores with (birth date, nationality, identifiers).
 */
export function yenteProperties(query: SourceQuery): Record<string, string[]> {
  const properties: Record<string, string[]> = {};
  if (!query.identifiersOnly) properties.name = [query.entity];
  const facts = query.facts;
  if (facts?.dateOfBirth) properties.birthDate = [facts.dateOfBirth];
  if (facts?.countries)
    properties[query.type === 'person' ? 'nationality' : 'country'] = [...facts.countries];
  for (const id of facts?.identifiers ?? []) {
    const property = FTM_IDENTIFIER_PROPERTIES[id.type];
    if (property) properties[property] = [...(properties[property] ?? []), id.value];
  }
  return properties;
}

/** The FtM property each identifier kind of a query is written to. */
const FTM_IDENTIFIER_PROPERTIES: Readonly<Record<string, string>> = {
  passport: 'passportNumber',
  national_id: 'idNumber',
  tax_id: 'taxNumber',
  company_number: 'registrationNumber',
  lei: 'leiCode',
  bic: 'swiftBic',
  imo: 'imoNumber',
  mmsi: 'mmsi',
  call_sign: 'callSign',
  aircraft_registration: 'registrationNumber',
};

/**
 * OpenSanctions through its hosted API or a self-hosted yente (`OPENSANCTIONS_MODE=api`). yente finds
 * the candidates; the service's own matcher scores their names, so that a match score here means
 * what it means for the official lists (yente's own score is kept as `provider_score`). The flags
 * follow the bulk mode's rules, `confirms` included: hence the official lists enabled here.
 */
export class OpenSanctionsApiAdapter implements ProviderAdapter {
  readonly id = 'opensanctions';
  readonly kind = 'watchlist_provider' as const;

  constructor(
    private readonly http: ProviderHttp,
    private readonly settings: ProviderSettings['opensanctionsApi'],
    private readonly enabledLists: () => readonly string[],
  ) {}

  async search(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    const { url, body } = yenteMatchRequest(this.settings.url, this.settings.dataset, query);
    const headers: Record<string, string> = {};
    if (this.settings.apiKey) headers.authorization = `ApiKey ${this.settings.apiKey}`;
    const answer = await this.http.json({ url, method: 'POST', headers, body }, signal);
    const candidates = yenteResults(answer, YENTE_QUERY_KEY);
    if (!Array.isArray(candidates)) throw new ProviderError(this.id, 'malformed', candidates.problem);
    const context = { enabledLists: this.enabledLists() };
    return candidates
      .flatMap((candidate) => opensanctionsFlag(candidate, query, context) ?? [])
      .sort((a, b) => b.match_score - a.match_score);
  }
}
