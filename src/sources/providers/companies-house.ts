import { timeLimited } from '../../time-limit.js';
import type { Flag } from '../flag.js';
import type { SourceQuery } from '../source.js';
import {
  COMPANIES_HOUSE_SOURCE_ID,
  type DisqualifiedOfficerItem,
  disqualifiedOfficerFlag,
  disqualifiedOfficersFrom,
  type OfficerDisqualifications,
  type OfficerMatch,
  officerDisqualificationsFrom,
  officerMatch,
} from './companies-house-records.js';
import { ProviderError } from './provider-error.js';
import type { ProviderHttp } from './provider-http.js';
import type { ProviderSettings } from './provider-settings.js';
import type { ProviderAdapter } from './provider-source.js';

/**
 * Search results asked for per screening. The search ranks loosely (any word of the name), so a
 * common surname needs more than the first page of 20 to reach the right person; our matcher then
 * keeps only real matches. 50 items are about 30 kB.
 */
export const COMPANIES_HOUSE_SEARCH_ITEMS = 50;
/**
 * Detail look-ups (the dates of each disqualification) are not started with less than this left of
 * the time budget: they could not answer in time, and the flags go out without dates instead.
 */
export const COMPANIES_HOUSE_DETAIL_MIN_MS = 50;

/**
 * `uk_companies_house`: the Companies House register of disqualified directors, searched by name.
 * The search result gives the officer's name, date of birth and address but not the dates of the
 * disqualification; those come from the officer's detail resource, read only for the officers our
 * matcher kept, in parallel, within what is left of the time budget. The API key goes as the user
 * name of HTTP basic auth (empty password), the scheme the API documents; it is never logged.
 */
export class CompaniesHouseAdapter implements ProviderAdapter {
  readonly id = COMPANIES_HOUSE_SOURCE_ID;
  readonly kind = 'corporate_registry' as const;
  private readonly baseUrl: string;
  private readonly authorization: string;
  private readonly budgetMs: number;
  private readonly http: ProviderHttp;

  constructor(http: ProviderHttp, settings: ProviderSettings) {
    const { url, apiKey } = settings.companiesHouse;
    if (!apiKey) throw new Error('the Companies House source needs an API key');
    this.http = http;
    this.baseUrl = url.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
    this.budgetMs = settings.timeoutMs;
  }

  async search(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    const started = performance.now();
    const items = await this.searchOfficers(query.entity, signal);
    const matches = items
      .map((item) => officerMatch(query.entity, query.type, item))
      .filter((m) => m.comparison.score >= query.threshold)
      .sort((a, b) => b.comparison.score - a.comparison.score)
      .slice(0, query.limit);
    const remainingMs = this.budgetMs - (performance.now() - started);
    const details = await this.disqualificationsOf(matches, remainingMs, signal);
    return matches.map((match, i) => disqualifiedOfficerFlag(match, details[i] ?? null));
  }

  private async searchOfficers(name: string, signal: AbortSignal): Promise<DisqualifiedOfficerItem[]> {
    const url = new URL(`${this.baseUrl}/search/disqualified-officers`);
    url.searchParams.set('q', name);
    url.searchParams.set('items_per_page', String(COMPANIES_HOUSE_SEARCH_ITEMS));
    const body = await this.http.json({ url, headers: { authorization: this.authorization } }, signal);
    const items = disqualifiedOfficersFrom(body);
    if (!items)
      throw new ProviderError(this.id, 'malformed', 'the answer is not a disqualified-officer search');
    return items;
  }

  /**
   * The detail resource of each matched officer, or null for one that could not be read: a
   * missing date must not cost the match itself, which is the compliance signal.
   */
  private async disqualificationsOf(
    matches: OfficerMatch[],
    remainingMs: number,
    signal: AbortSignal,
  ): Promise<Array<OfficerDisqualifications | null>> {
    if (remainingMs < COMPANIES_HOUSE_DETAIL_MIN_MS) return matches.map(() => null);
    const stage = timeLimited(signal, remainingMs);
    return Promise.all(
      matches.map(async ({ item }) => {
        if (!item.path) return null;
        try {
          const url = new URL(this.baseUrl + item.path);
          const body = await this.http.json(
            { url, headers: { authorization: this.authorization } },
            stage.signal,
          );
          return officerDisqualificationsFrom(body) ?? null;
        } catch {
          return null;
        }
      }),
    ).finally(stage.clear);
  }
}
