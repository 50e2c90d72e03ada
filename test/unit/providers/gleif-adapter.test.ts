import { describe, expect, it } from 'vitest';
import type { Flag } from '../../../src/sources/flag.js';
import { GleifAdapter, type OfficialLists } from '../../../src/sources/providers/gleif.js';
import { ProviderError } from '../../../src/sources/providers/provider-error.js';
import type { ProviderHttp, ProviderRequest } from '../../../src/sources/providers/provider-http.js';
import type { ProviderSettings } from '../../../src/sources/providers/provider-settings.js';
import { ProviderSource } from '../../../src/sources/providers/provider-source.js';
import type { SourceQuery } from '../../../src/sources/source.js';
import { FakeClock } from '../../support/fake-clock.js';
import { fixture } from '../../support/provider-server.js';

const BASE = 'https://gleif.test/api/v1';
const SUBSIDIARY = '5493003BHTRD00HK0161';
const query: SourceQuery = {
  entity: 'blue harbour trading limited',
  type: 'entity',
  threshold: 0.5,
  limit: 10,
};

const settings = (timeoutMs = 2_000) =>
  ({ timeoutMs, concurrency: 8, gleif: { enabled: true, url: BASE } }) as ProviderSettings;

type Answer = (signal: AbortSignal) => Promise<unknown>;
const json =
  (name: string): Answer =>
  async () =>
    JSON.parse(fixture(name));
const fails =
  (status: number): Answer =>
  async () => {
    throw new ProviderError('gleif', 'http_status', `answered HTTP ${status}`, status);
  };
/** An answer that never comes: it ends only when the caller's signal gives up. */
const hangs: Answer = (signal) =>
  new Promise((_, reject) =>
    signal.addEventListener('abort', () => reject(new ProviderError('gleif', 'timeout', 'stopped waiting'))),
  );

/** A GLEIF that answers each path as the test says, and records what was asked. */
function fakeGleif(answers: Record<string, Answer>) {
  const asked: string[] = [];
  const http = {
    json: async (request: ProviderRequest, signal: AbortSignal) => {
      const path = request.url.pathname.replace('/api/v1', '');
      asked.push(path);
      const answer = answers[path] ?? fails(404);
      return answer(signal);
    },
  } as unknown as ProviderHttp;
  return { http, asked };
}

/** The official lists: only the listed parent of the fixtures is on them. */
async function unList(parentQuery: SourceQuery): Promise<Flag[]> {
  if (!/korea mining/i.test(parentQuery.entity)) return [];
  return [
    {
      type: 'sanctions',
      source: 'un_sc',
      list: 'UN_CONSOLIDATED',
      match_score: 1,
      details: { source_id: '690735', name: 'KOREA MINING DEVELOPMENT TRADING CORPORATION' },
    },
  ];
}

const UN_LIST: OfficialLists = { screenOfficialLists: unList, officialListVersions: () => 'un_sc@v1' };

const subsidiaryAnswers = {
  '/lei-records': json('gleif-lei-records-subsidiary.json'),
  [`/lei-records/${SUBSIDIARY}/direct-parent`]: json('gleif-direct-parent-intermediate.json'),
  [`/lei-records/${SUBSIDIARY}/ultimate-parent`]: json('gleif-ultimate-parent-listed.json'),
};

describe('GLEIF adapter', () => {
  it('applies to legal entities only: a person, who has no LEI, is not for GLEIF', () => {
    const adapter = new GleifAdapter(fakeGleif(subsidiaryAnswers).http, settings(), UN_LIST);
    expect(adapter.appliesTo('entity')).toBe(true);
    expect(adapter.appliesTo('person')).toBe(false);
  });

  it('asks only for parents a record reports, never for a declared reporting exception', async () => {
    const gleif = fakeGleif(subsidiaryAnswers);
    const flags = await new GleifAdapter(gleif.http, settings(), UN_LIST).search(
      query,
      new AbortController().signal,
    );
    expect(flags.map((f) => [f.source, f.list, (f.details.via as any).relationship])).toEqual([
      ['gleif', 'UN_CONSOLIDATED', 'ultimate_parent'],
    ]);
    // The Shenzhen namesake matches the name too but declares no parent: it costs no call.
    expect(gleif.asked.sort()).toEqual([
      '/lei-records',
      `/lei-records/${SUBSIDIARY}/direct-parent`,
      `/lei-records/${SUBSIDIARY}/ultimate-parent`,
    ]);
  });

  it('reports a listed parent it found even when the other parent could not be looked up', async () => {
    const gleif = fakeGleif({
      ...subsidiaryAnswers,
      [`/lei-records/${SUBSIDIARY}/direct-parent`]: fails(503),
    });
    const flags = await new GleifAdapter(gleif.http, settings(), UN_LIST).search(
      query,
      new AbortController().signal,
    );
    expect(flags).toHaveLength(1);
  });

  it('fails rather than answer "no listed parent" when a parent could not be looked up', async () => {
    const gleif = fakeGleif({
      ...subsidiaryAnswers,
      [`/lei-records/${SUBSIDIARY}/ultimate-parent`]: fails(503),
    });
    const search = new GleifAdapter(gleif.http, settings(), UN_LIST).search(
      query,
      new AbortController().signal,
    );
    await expect(search).rejects.toMatchObject({ provider: 'gleif', failure: 'http_status', status: 503 });
  });

  it('takes a parent answered 404 as no parent, not as a failure', async () => {
    const gleif = fakeGleif({ '/lei-records': json('gleif-lei-records-subsidiary.json') });
    const flags = await new GleifAdapter(gleif.http, settings(), UN_LIST).search(
      query,
      new AbortController().signal,
    );
    expect(flags).toEqual([]);
  });

  it('ends the parent look-ups with the one time budget of the search, not a budget of their own', async () => {
    const gleif = fakeGleif({
      ...subsidiaryAnswers,
      [`/lei-records/${SUBSIDIARY}/direct-parent`]: hangs,
      [`/lei-records/${SUBSIDIARY}/ultimate-parent`]: hangs,
    });
    const search = new GleifAdapter(gleif.http, settings(150), UN_LIST).search(
      query,
      new AbortController().signal,
    );
    await expect(search).rejects.toMatchObject({ failure: 'timeout' });
  });

  it('treats an answer that is not a list of LEI records as a failure, never as no match', async () => {
    const gleif = fakeGleif({ '/lei-records': async () => ({ data: 'nothing' }) });
    const search = new GleifAdapter(gleif.http, settings(), UN_LIST).search(
      query,
      new AbortController().signal,
    );
    await expect(search).rejects.toMatchObject({ failure: 'malformed' });
  });

  it("states the official lists' versions as its own, so that a list update ends its cached answers", () => {
    let versions = 'un_sc@3f1c,eu_fsf@9a0b';
    const lists: OfficialLists = { screenOfficialLists: unList, officialListVersions: () => versions };
    const source = new ProviderSource(new GleifAdapter(fakeGleif({}).http, settings(), lists), {
      clock: new FakeClock('2026-02-15T00:00:00Z'),
      budgetMs: 2_000,
    });
    const before = source.version();
    expect(before).toBe('un_sc@3f1c,eu_fsf@9a0b');
    expect(source.version()).toBe(before);
    versions = 'un_sc@77d2,eu_fsf@9a0b';
    expect(source.version()).not.toBe(before);
  });
});
