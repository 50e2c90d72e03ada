import { describe, expect, it } from 'vitest';
import type { Flag } from '../../../src/sources/flag.js';
import { CircuitBreaker } from '../../../src/sources/providers/circuit-breaker.js';
import { ProviderError } from '../../../src/sources/providers/provider-error.js';
import {
  CIRCUIT_FAILURE_THRESHOLD,
  CIRCUIT_OPEN_MS,
} from '../../../src/sources/providers/provider-policy.js';
import { ProviderSource } from '../../../src/sources/providers/provider-source.js';
import type { SourceQuery } from '../../../src/sources/source.js';
import { FakeClock } from '../../support/fake-clock.js';

const fail = (breaker: CircuitBreaker, times: number) => {
  for (let i = 0; i < times; i++) {
    expect(breaker.tryAcquire()).toBe(true);
    breaker.failed();
  }
};

/** A breaker that 5 failures just opened, and the clock that moves it on. */
function openedBreaker() {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const breaker = new CircuitBreaker(clock);
  fail(breaker, 5);
  return { clock, breaker };
}

/** A breaker whose 30 s open period just ended, with its one trial request under way. */
function trialUnderWay() {
  const { clock, breaker } = openedBreaker();
  clock.advance(30_000);
  expect(breaker.tryAcquire()).toBe(true);
  return { clock, breaker };
}

describe('circuit breaker', () => {
  it('keeps 5 failures and 30 s as its policy', () => {
    expect(CIRCUIT_FAILURE_THRESHOLD).toBe(5);
    expect(CIRCUIT_OPEN_MS).toBe(30_000);
  });

  it('opens after 5 consecutive failures, not before', () => {
    const breaker = new CircuitBreaker(new FakeClock('2026-01-01T00:00:00Z'));
    fail(breaker, 4);
    expect(breaker.state()).toBe('closed');
    fail(breaker, 1);
    expect(breaker.state()).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
  });

  it('counts only consecutive failures: a success starts the count again', () => {
    const breaker = new CircuitBreaker(new FakeClock('2026-01-01T00:00:00Z'));
    fail(breaker, 4);
    breaker.succeeded();
    fail(breaker, 4);
    expect(breaker.state()).toBe('closed');
  });

  it('refuses every request for 30 s, then lets exactly one trial through', () => {
    const { clock, breaker } = openedBreaker();
    clock.advance(29_999);
    expect(breaker.tryAcquire()).toBe(false);
    clock.advance(1);
    expect(breaker.state()).toBe('half_open');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false);
  });

  it('closes when the half-open trial succeeds', () => {
    const { breaker } = trialUnderWay();
    breaker.succeeded();
    expect(breaker.state()).toBe('closed');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('re-opens for another 30 s when the half-open trial fails', () => {
    const { clock, breaker } = trialUnderWay();
    breaker.failed();
    expect(breaker.state()).toBe('open');
    clock.advance(29_999);
    expect(breaker.tryAcquire()).toBe(false);
    clock.advance(1);
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('lets another trial go when the first one ended without an outcome', () => {
    const { breaker } = trialUnderWay();
    breaker.released();
    expect(breaker.tryAcquire()).toBe(true);
  });
});

const query: SourceQuery = { entity: 'acme trading', type: 'entity', threshold: 0.5, limit: 10 };
const never = () => new AbortController().signal;

function providerSource(clock: FakeClock, search: () => Promise<Flag[]>) {
  let calls = 0;
  const source = new ProviderSource(
    {
      id: 'test_provider',
      kind: 'watchlist_provider',
      search: () => {
        calls += 1;
        return search();
      },
    },
    { clock, budgetMs: 1_000 },
  );
  return { source, calls: () => calls };
}

describe('a provider behind its circuit breaker', () => {
  it('is skipped without being asked, and reported down, after 5 failed screenings', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    const { source, calls } = providerSource(clock, () => Promise.reject(new Error('502')));
    for (let i = 0; i < 5; i++) await expect(source.screen(query, never())).rejects.toThrow('502');
    expect(source.health()).toBe('down');
    const skipped = await source.screen(query, never()).catch((e: unknown) => e);
    expect(skipped).toBeInstanceOf(ProviderError);
    expect((skipped as ProviderError).failure).toBe('circuit_open');
    expect(calls()).toBe(5);
  });

  it('asks again after 30 s and is up again when the trial answers', async () => {
    const clock = new FakeClock('2026-01-01T00:00:00Z');
    let broken = true;
    const { source, calls } = providerSource(clock, () =>
      broken ? Promise.reject(new Error('502')) : Promise.resolve([]),
    );
    for (let i = 0; i < 5; i++) await source.screen(query, never()).catch(() => {});
    broken = false;
    clock.advance(30_000);
    expect(await source.screen(query, never())).toEqual([]);
    expect(calls()).toBe(6);
    expect(source.health()).toBe('up');
  });

  it('gives the orchestrator a cut-off just above the provider budget', () => {
    const { source } = providerSource(new FakeClock('2026-01-01T00:00:00Z'), () => Promise.resolve([]));
    expect(source.timeoutMs).toBeGreaterThan(1_000);
    expect(source.timeoutMs).toBeLessThanOrEqual(1_200);
    expect(source.version()).toBeUndefined();
  });
});
