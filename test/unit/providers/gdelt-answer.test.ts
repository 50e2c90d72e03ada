import { describe, expect, it } from 'vitest';
import { type GdeltAnswer, readGdeltAnswer } from '../../../src/sources/providers/gdelt-answer.js';
import { ProviderError } from '../../../src/sources/providers/provider-error.js';
import { fixture } from '../../support/provider-server.js';

function articles(answer: GdeltAnswer) {
  if ('failure' in answer) throw answer.failure;
  return answer.articles;
}

function failure(answer: GdeltAnswer): ProviderError {
  expect(answer).toHaveProperty('failure');
  return (answer as { failure: ProviderError }).failure;
}

describe("reading GDELT's answer", () => {
  it('reads every article of an artlist answer, with the seen date in ISO 8601', () => {
    const list = articles(readGdeltAnswer(fixture('gdelt-artlist.json'), 'vantorex holdings'));
    expect(list).toHaveLength(16);
    expect(list[0]).toEqual({
      url: 'https://news.example.com/business/2026/02/vantorex-holdings-executives-charged-fraud',
      title: 'Vantorex Holdings executives charged with fraud over shipping contracts',
      domain: 'news.example.com',
      language: 'English',
      sourceCountry: 'United States',
      seenAt: '2026-02-14T09:30:00Z',
    });
  });

  it('reads `{}`, what GDELT answers when nothing matched, as no articles', () => {
    expect(articles(readGdeltAnswer('{}', 'vantorex holdings'))).toEqual([]);
  });

  it('leaves out an article without an http(s) address or a title, keeping the others', () => {
    const body = JSON.stringify({
      articles: [
        { url: 'javascript:alert(1)', title: 'bad address' },
        { url: 'https://example.com/a', title: '' },
        { url: 'https://example.com/b', title: 'kept', seendate: 'yesterday', domain: 42 },
      ],
    });
    expect(articles(readGdeltAnswer(body, 'x y z'))).toEqual([
      {
        url: 'https://example.com/b',
        title: 'kept',
        domain: null,
        language: null,
        sourceCountry: null,
        seenAt: null,
      },
    ]);
  });

  it('repairs the raw control characters and stray backslashes GDELT leaves in titles', () => {
    const body = '{"articles": [{"url": "https://example.com/a", "title": "Line\tone \\d two\u0001"}]}';
    expect(articles(readGdeltAnswer(body, 'x y z'))[0]!.title).toMatch(/^Line one \\d two/);
  });

  it('fails on JSON beyond repair, never reading it as no articles', () => {
    expect(failure(readGdeltAnswer('{"articles": [{"url": ', 'vantorex holdings')).failure).toBe('malformed');
  });

  it('fails on an empty body and on an HTML page', () => {
    expect(failure(readGdeltAnswer('', 'vantorex holdings')).failure).toBe('malformed');
    expect(failure(readGdeltAnswer('<!DOCTYPE html><html>busy</html>', 'vantorex holdings')).message).toMatch(
      /HTML/,
    );
  });

  it('fails, quoting GDELT, on a query refused for its syntax (a query built wrongly here)', () => {
    const refused = failure(readGdeltAnswer(fixture('gdelt-query-rejected.txt'), 'vantorex holdings'));
    expect(refused.failure).toBe('malformed');
    expect(refused.message).toMatch(/rejected the query: Queries containing OR'd terms/);
  });

  it('fails on the rate-limit sentence, as a status that is not retried', () => {
    const limited = failure(readGdeltAnswer(fixture('gdelt-rate-limited.txt'), 'vantorex holdings'));
    expect(limited).toMatchObject({ failure: 'http_status', status: 429, retryable: false });
  });

  it('reads "phrase too short" as no articles: GDELT cannot search such a name for anyone', () => {
    expect(articles(readGdeltAnswer(fixture('gdelt-phrase-too-short.txt'), 'li na'))).toEqual([]);
  });

  it('reads "too short or too long" as no articles only for a name without a three-letter word', () => {
    const sentence = 'Your query was too short or too long.\n';
    expect(articles(readGdeltAnswer(sentence, 'bp'))).toEqual([]);
    expect(failure(readGdeltAnswer(sentence, 'vantorex holdings')).failure).toBe('malformed');
  });

  it('keeps untrusted text short and free of control characters in the error', () => {
    const long = `Unexpected\u0007 ${'x'.repeat(500)}`;
    const error = failure(readGdeltAnswer(long, 'vantorex holdings'));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message.length).toBeLessThan(200);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the assertion is about them
    expect(error.message).not.toMatch(/[\u0000-\u001f]/);
  });
});
