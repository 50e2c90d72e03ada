import { describe, expect, it } from 'vitest';
import { fanOut } from '../../../src/screening/fan-out.js';
import type { Flag } from '../../../src/sources/flag.js';
import { ListUnavailableError } from '../../../src/sources/lists/loaded-lists.js';
import { ProviderError } from '../../../src/sources/providers/provider-error.js';
import type { Source, SourceQuery } from '../../../src/sources/source.js';

const query: SourceQuery = { entity: 'acme trading', type: 'entity', threshold: 0.5, limit: 2 };

function source(id: string, screen: Source['screen'], timeoutMs = 200): Source {
  return { id, kind: 'direct_feed', timeoutMs, screen, health: () => 'up', version: () => 'v1' };
}

function flag(sourceId: string, score: number): Flag {
  return { type: 'sanctions', source: sourceId, list: 'L', match_score: score, details: {} };
}

describe('fan-out over sources', () => {
  it('merges the flags of all sources above the threshold, strongest first, limited per source', async () => {
    const result = await fanOut(
      [
        source('a', async () => [flag('a', 0.6), flag('a', 0.9), flag('a', 0.4)]),
        source('b', async () => [flag('b', 0.95), flag('b', 0.7), flag('b', 0.65)]),
        source('c', async () => []),
      ],
      query,
    );
    expect(result.flags.map((f) => `${f.source}:${f.match_score}`)).toEqual([
      'b:0.95',
      'a:0.9',
      'b:0.7',
      'a:0.6',
    ]);
    expect(result.sources_queried).toEqual(['a', 'b', 'c']);
    expect(result.sources_matched).toEqual(['a', 'b']);
    expect(result.source_errors).toEqual([]);
    expect(result.sources_failed).toEqual([]);
    expect(result.complete).toBe(true);
  });

  it('reports each failed source with why, and is incomplete only when an official list failed', async () => {
    const fails = (error: Error) => async (): Promise<Flag[]> => {
      throw error;
    };
    const provider = (id: string, screen: Source['screen']): Source => ({
      ...source(id, screen),
      kind: 'watchlist_provider',
    });
    const providersFailing = await fanOut(
      [
        source('list', async () => []),
        provider('slow', fails(new ProviderError('slow', 'timeout', 'no answer within 3000 ms'))),
        provider('skipped', fails(new ProviderError('skipped', 'circuit_open', 'skipped'))),
        provider('broken', fails(new ProviderError('broken', 'http_status', 'answered HTTP 500', 500))),
      ],
      query,
    );
    expect(providersFailing.sources_failed).toEqual([
      { source: 'slow', reason: 'timeout' },
      { source: 'skipped', reason: 'unavailable' },
      { source: 'broken', reason: 'error' },
    ]);
    expect(providersFailing.complete).toBe(true);

    const listFailing = await fanOut(
      [source('not-loaded', fails(new ListUnavailableError('not-loaded'))), provider('ok', async () => [])],
      query,
    );
    expect(listFailing.sources_failed).toEqual([{ source: 'not-loaded', reason: 'unavailable' }]);
    expect(listFailing.complete).toBe(false);
  });

  it('answers on time with the other sources when one throws and one hangs', async () => {
    const started = Date.now();
    const result = await fanOut(
      [
        source('ok', async () => [flag('ok', 0.8)]),
        source('throws', async () => {
          throw new Error('provider answered 500');
        }),
        source('hangs', () => new Promise<Flag[]>(() => {}), 100),
      ],
      query,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(result.flags).toHaveLength(1);
    expect(result.sources_matched).toEqual(['ok']);
    expect(result.source_errors).toEqual([
      { source: 'throws', error: 'provider answered 500', timed_out: false, reason: 'error' },
      { source: 'hangs', error: 'no answer within 100 ms', timed_out: true, reason: 'timeout' },
    ]);
  });

  it('holds each source to its own timeout, whichever other sources share or do not share it', async () => {
    const answersAfter = (ms: number, id: string) => () =>
      new Promise<Flag[]>((resolve) => setTimeout(() => resolve([flag(id, 0.9)]), ms));
    const result = await fanOut(
      [
        source('quick-hangs', () => new Promise<Flag[]>(() => {}), 50),
        source('quick-answers', answersAfter(10, 'quick-answers'), 50),
        source('patient', answersAfter(150, 'patient'), 400),
        source('patient-hangs', () => new Promise<Flag[]>(() => {}), 400),
      ],
      query,
    );
    expect(result.sources_matched).toEqual(['quick-answers', 'patient']);
    expect(result.source_errors).toEqual([
      { source: 'quick-hangs', error: 'no answer within 50 ms', timed_out: true, reason: 'timeout' },
      { source: 'patient-hangs', error: 'no answer within 400 ms', timed_out: true, reason: 'timeout' },
    ]);
  });

  it('aborts the signal of a source that runs out of time', async () => {
    let aborted = false;
    await fanOut(
      [
        source(
          'slow',
          (_q, signal) =>
            new Promise<Flag[]>((resolve) => {
              signal.addEventListener('abort', () => {
                aborted = true;
                resolve([]);
              });
            }),
          50,
        ),
      ],
      query,
    );
    expect(aborted).toBe(true);
  });
});
