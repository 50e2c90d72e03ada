import { describe, expect, it } from 'vitest';
import { RESULT_CACHE_TTL_MS } from '../../../src/screening/screening-policy.js';
import { comparableUrl, distinctStories, sameStory } from '../../../src/sources/providers/article-dedup.js';
import {
  adverseMediaFlags,
  GDELT_ARTICLES_CACHE_TTL_MS,
  GDELT_MAX_ARTICLES,
  scoreArticles,
} from '../../../src/sources/providers/gdelt.js';
import { type GdeltArticle, readGdeltAnswer } from '../../../src/sources/providers/gdelt-answer.js';
import { TitleMatcher, titleWords } from '../../../src/sources/providers/title-match.js';
import type { SourceQuery } from '../../../src/sources/source.js';
import { fixture } from '../../support/provider-server.js';

const answer = readGdeltAnswer(fixture('gdelt-artlist.json'), 'x');
const ARTICLES = 'articles' in answer ? answer.articles : [];
const query: SourceQuery = { entity: 'vantorex holdings', type: 'entity', threshold: 0.5, limit: 10 };
const flagsFor = (q: SourceQuery, articles: readonly GdeltArticle[] = ARTICLES) =>
  adverseMediaFlags(scoreArticles(articles, q.entity, q.type), q);

describe('a name in a headline', () => {
  it('is found as written, with the words that matched and the explanation', () => {
    const match = new TitleMatcher('vantorex holdings', 'entity').match(
      'Vantorex Holdings : prosecutors open money laundering probe',
    );
    expect(match).toMatchObject({ score: 1, matchedText: 'Vantorex Holdings' });
    expect(match!.explanation.matchedName).toBe('Vantorex Holdings');
  });

  it('is found in the middle of a headline, around a middle initial', () => {
    const match = new TitleMatcher('alexander zakharov', 'person').match(
      'Police detain Alexander V. Zakharov over drone exports',
    );
    expect(match!.matchedText).toBe('Alexander V Zakharov');
    expect(match!.score).toBeGreaterThan(0.85);
  });

  it('matches a company with its legal form as a listed name would', () => {
    const match = new TitleMatcher('acme trading ltd', 'entity').match('Acme Trading Ltd fined over fraud');
    expect(match).toMatchObject({ score: 1, matchedText: 'Acme Trading Ltd' });
  });

  it('scores a surname alone as the matcher scores it, lower than the full name', () => {
    const surname = new TitleMatcher('alexander zakharov', 'person').match('Zakharov arrested in Moscow');
    expect(surname!.score).toBeLessThan(0.8);
  });

  it('finds nothing in a headline about someone else', () => {
    const match = new TitleMatcher('vantorex holdings', 'entity').match(
      'Regulators widen probe into shipping fraud at three ports',
    );
    expect(match === undefined || match.score < 0.5).toBe(true);
  });

  it('reads the words of a headline without the punctuation GDELT spaces out', () => {
    expect(titleWords('Vantorex : police say , "fraud" (again)')).toEqual([
      'Vantorex',
      'police',
      'say',
      'fraud',
      'again',
    ]);
  });
});

describe('one flag per story', () => {
  it('reads an address without tracking parameters, fragment, www or trailing slash', () => {
    expect(comparableUrl('https://www.Example.org/a/b/?utm_source=rss&id=7#top')).toBe(
      'example.org/a/b?id=7',
    );
    expect(comparableUrl('http://example.org/a/b?id=7')).toBe('example.org/a/b?id=7');
  });

  it('takes a syndicated copy with a source suffix for the same story', () => {
    const a = titleWords('Vantorex Holdings : prosecutors open money laundering probe').map((w) =>
      w.toLowerCase(),
    );
    const b = titleWords('Vantorex Holdings : prosecutors open money laundering probe - Example Wire').map(
      (w) => w.toLowerCase(),
    );
    expect(sameStory(a, b)).toBe(true);
  });

  it('takes a headline GDELT cut short, even mid-word, for the same story', () => {
    const full = 'former vantorex holdings director arrested in rotterdam police say'.split(' ');
    expect(sameStory(full.slice(0, 6).concat('rotte'), full)).toBe(true);
  });

  it('keeps two different stories about the same party', () => {
    const a = 'vantorex holdings fined over tax evasion scheme'.split(' ');
    const b = 'vantorex holdings denies terrorism financing allegations'.split(' ');
    expect(sameStory(a, b)).toBe(false);
  });

  it('keeps the first of each story and stops at the maximum', () => {
    const items = [
      { url: 'https://a.example/1', title: 'Acme fined for fraud' },
      { url: 'https://a.example/1?utm_medium=x', title: 'Acme fined (copy)' },
      { url: 'https://b.example/2', title: 'Acme fined for fraud' },
      { url: 'https://c.example/3', title: 'Acme chief arrested' },
      { url: 'https://d.example/4', title: 'Acme sued by investors' },
    ];
    expect(distinctStories(items, (i) => i, 2).map((i) => i.url)).toEqual([
      'https://a.example/1',
      'https://c.example/3',
    ]);
  });
});

describe('adverse-media flags from GDELT articles', () => {
  it('flags the articles naming the party, strongest first, with what a reviewer needs', () => {
    const flags = flagsFor(query);
    expect(flags[0]).toEqual({
      type: 'adverse_media',
      source: 'gdelt',
      list: 'ADVERSE_MEDIA',
      match_score: 1,
      details: {
        title: 'Vantorex Holdings executives charged with fraud over shipping contracts',
        url: 'https://news.example.com/business/2026/02/vantorex-holdings-executives-charged-fraud',
        domain: 'news.example.com',
        language: 'English',
        source_country: 'United States',
        seen_date: '2026-02-14T09:30:00Z',
        adverse_terms: ['fraud', 'charged'],
        matched_name: 'Vantorex Holdings',
        match_explanation: expect.objectContaining({ matched_name: 'Vantorex Holdings', score: 1 }),
      },
    });
    const scores = flags.map((f) => f.match_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('reports at most 10 articles, each story once', () => {
    const flags = flagsFor(query);
    expect(GDELT_MAX_ARTICLES).toBe(10);
    expect(flags).toHaveLength(10);
    const titles = flags.map((f) => f.details.title as string);
    expect(titles.filter((t) => t.includes('money laundering probe'))).toHaveLength(1);
    expect(titles.filter((t) => t.includes('arrested in Rotterdam'))).toHaveLength(1);
    expect(new Set(flags.map((f) => comparableUrl(f.details.url as string))).size).toBe(10);
  });

  it('never flags a headline that does not name the party', () => {
    const titles = flagsFor({ ...query, limit: 100 }).map((f) => f.details.title);
    expect(titles).not.toContain('Regulators widen probe into shipping fraud at three ports');
  });

  it('applies the request threshold to the headline match', () => {
    const partial = ARTICLES.filter((a) => a.title.startsWith('Vantorex shares'));
    const low = flagsFor({ ...query, threshold: 0.3 }, partial);
    expect(low).toHaveLength(1);
    expect(flagsFor({ ...query, threshold: low[0]!.match_score + 0.01 }, partial)).toEqual([]);
  });

  it('flags nothing for a name no headline carries', () => {
    expect(flagsFor({ ...query, entity: 'alexander zakharov', type: 'person' })).toEqual([]);
  });

  it('keeps articles for the lifetime of a screening result', () => {
    expect(GDELT_ARTICLES_CACHE_TTL_MS).toBe(RESULT_CACHE_TTL_MS);
  });
});
