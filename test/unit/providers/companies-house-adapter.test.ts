import { describe, expect, it } from 'vitest';
import { CompaniesHouseAdapter } from '../../../src/sources/providers/companies-house.js';
import { ProviderError } from '../../../src/sources/providers/provider-error.js';
import type { ProviderHttp, ProviderRequest } from '../../../src/sources/providers/provider-http.js';
import type { ProviderSettings } from '../../../src/sources/providers/provider-settings.js';
import type { SourceQuery } from '../../../src/sources/source.js';
import { fixture } from '../../support/provider-server.js';

const NATURAL = '/disqualified-officers/natural/Fq3kTzS0d9wLbY2xPpN7vR1cHuE';
const query: SourceQuery = { entity: 'jonathan marlowe', type: 'person', threshold: 0.5, limit: 10 };

const settings = (timeoutMs = 2_000) =>
  ({
    timeoutMs,
    concurrency: 8,
    companiesHouse: { url: 'https://ch.test', apiKey: 'test-key' },
  }) as ProviderSettings;

type Answer = (signal: AbortSignal) => Promise<unknown>;

function fakeRegistry(answers: Record<string, Answer>) {
  const asked: ProviderRequest[] = [];
  const http = {
    json: async (request: ProviderRequest, signal: AbortSignal) => {
      asked.push(request);
      const answer = answers[request.url.pathname];
      if (!answer) throw new ProviderError('uk_companies_house', 'http_status', 'answered HTTP 404', 404);
      return answer(signal);
    },
  } as unknown as ProviderHttp;
  return { http, asked };
}

const search: Answer = async () => JSON.parse(fixture('companies-house-search-disqualified-officers.json'));

describe('Companies House adapter', () => {
  it('refuses to be built without an API key (the source is then simply not configured)', () => {
    const noKey = { ...settings(), companiesHouse: { url: 'https://ch.test', apiKey: undefined } };
    expect(() => new CompaniesHouseAdapter(fakeRegistry({}).http, noKey)).toThrow(/API key/);
  });

  it('reads the detail resource of the matched officers only', async () => {
    const registry = fakeRegistry({
      '/search/disqualified-officers': search,
      [NATURAL]: async () => JSON.parse(fixture('companies-house-natural-officer.json')),
    });
    const flags = await new CompaniesHouseAdapter(registry.http, settings()).search(
      query,
      new AbortController().signal,
    );
    expect(flags.map((f) => f.details.name)).toEqual(['Jonathan Edward MARLOWE']);
    expect(flags[0]!.details.disqualifications).toHaveLength(1);
    expect(registry.asked.map((r) => r.url.pathname)).toEqual(['/search/disqualified-officers', NATURAL]);
    expect(Object.fromEntries(registry.asked[0]!.url.searchParams)).toEqual({
      q: 'jonathan marlowe',
      items_per_page: '50',
    });
  });

  it('sends the key as the basic-auth user name with an empty password, on every call', async () => {
    const registry = fakeRegistry({ '/search/disqualified-officers': search });
    await new CompaniesHouseAdapter(registry.http, settings()).search(query, new AbortController().signal);
    const expected = `Basic ${Buffer.from('test-key:').toString('base64')}`;
    expect(registry.asked.map((r) => r.headers?.authorization)).toEqual([expected, expected]);
  });

  it('keeps the flag without dates when the detail resource does not answer within the budget', async () => {
    const registry = fakeRegistry({
      '/search/disqualified-officers': search,
      [NATURAL]: (signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    });
    const flags = await new CompaniesHouseAdapter(registry.http, settings(150)).search(
      query,
      new AbortController().signal,
    );
    expect(flags).toHaveLength(1);
    expect(flags[0]!.details.disqualifications).toBeNull();
  });

  it('treats an answer that is not a search result as a failure, never as no match', async () => {
    const registry = fakeRegistry({ '/search/disqualified-officers': async () => ['not', 'a', 'search'] });
    const searching = new CompaniesHouseAdapter(registry.http, settings()).search(
      query,
      new AbortController().signal,
    );
    await expect(searching).rejects.toMatchObject({ provider: 'uk_companies_house', failure: 'malformed' });
  });
});
