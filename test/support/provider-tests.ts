import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CIRCUIT_FAILURE_THRESHOLD } from '../../src/sources/providers/provider-policy.js';
import { type Backend, backends } from './backends.js';
import { isolatedBackend } from './isolated-database.js';
import type { ProviderReply, ProviderServer } from './provider-server.js';
import {
  type ProviderFailure,
  ProviderService,
  type ProviderUnderTest,
  withOwnService,
} from './provider-service.js';

export type { ProviderUnderTest } from './provider-service.js';

/** The budget of the one test that waits it out, a provider that does not answer. */
const SHORT_BUDGET_MS = 2_000;
/** How long a provider that "does not answer" would take: no screening waits that long. */
const NO_ANSWER_MS = 60 * 60 * 1000;
/** Where a failing provider redirects to, on another host name: no request may arrive there. */
const ELSEWHERE = '/elsewhere';
/** An answer over the providers' 2 MB cap. */
const OVERSIZED_BYTES = 3 * 1024 * 1024;

/** Runs a test on a service of its own, started with these settings over the provider's. */
export type OwnService = (
  env: Record<string, string>,
  test: (service: ProviderService) => Promise<void>,
) => Promise<void>;

/** The tests of one provider's file: what only this provider does or promises. */
export interface ProviderSuite {
  /** Tests on one running service, the provider answering normally at the start of each. */
  onOneService(service: ProviderService): void;
  /** Tests that start a service of their own (other settings, or a state of their own). */
  eachOnItsOwn?(ownService: OwnService): void;
}

/**
 * The integration suite of one provider, on every backend: its own tests, and the guarantees every
 * provider gives when it fails or keeps failing.
 */
export function describeProvider(provider: ProviderUnderTest, suite: ProviderSuite): void {
  describe.each(backends())(`${provider.suite} ($name)`, (shared) => {
    describe('on one running service', () => {
      const service = sharedService(shared, provider);
      suite.onOneService(service);
      failureTests(service);
    });
    describe('each on a service of its own', () => {
      const ownService: OwnService = (env, test) => withOwnService(shared, provider, env, test);
      healthTest(provider, ownService);
      noAnswerTest(provider, ownService);
      suite.eachOnItsOwn?.(ownService);
    });
  });
}

/** One service for the tests of the enclosing describe, on a database of its own. */
function sharedService(shared: Backend, provider: ProviderUnderTest): ProviderService {
  const service = new ProviderService(provider);
  let drop = async () => {};
  beforeAll(async () => {
    const isolated = await isolatedBackend(shared);
    drop = isolated.drop;
    await service.start(isolated.backend);
  }, 120_000);
  beforeEach(() => service.answerNormally());
  afterAll(async () => {
    await service.close();
    await drop();
  });
  return service;
}

/** The failures every provider must survive, in the provider's own answer shapes where it matters. */
function sharedFailures(provider: ProviderUnderTest): ProviderFailure[] {
  const replying = (reply: ProviderReply) => (server: ProviderServer) => server.serve(provider.path, reply);
  return [
    {
      label: 'answers 500',
      install: replying({ status: 500, body: provider.serverErrorBody }),
      error: /answered HTTP 500/,
    },
    {
      label: 'answers malformed JSON',
      install: replying({ body: provider.truncatedAnswer }),
      error: /not valid JSON/,
    },
    {
      label: 'sends a body over the size cap',
      install: replying({ body: { padding: 'x'.repeat(OVERSIZED_BYTES) }, chunked: true }),
      error: /larger than/,
    },
    {
      label: 'redirects to another host',
      install: (server) =>
        server.serve(provider.path, {
          status: 307,
          headers: { location: `${server.otherHostUrl}${ELSEWHERE}` },
        }),
      error: /another host/,
    },
  ];
}

/**
 * The guarantees every provider gives when it fails, one test per way of failing: the screening
 * answers 200 with the other sources, reports the provider in `sources_failed` with its
 * reason (a timeout as `timeout`), records it as failed (never as "no match": once it answers
 * again, the same screening finds the match), and never follows it to another host.
 */
function failureTests(service: ProviderService): void {
  const { provider } = service;
  const failures = [...sharedFailures(provider), ...(provider.ownFailures ?? [])];
  it.each(failures.map((failure, n) => [failure.label, failure, n] as const))(
    `answers 200 on time with the other sources when ${provider.title} %s, and asks again next time`,
    async (_label, failure, n) => {
      const { key } = await service.api.createAccount();
      failure.install(service.server);
      const response = await service.screen(provider.matched(n), { key });
      expect(response.status).toBe(200);
      expect(response.body.sources_queried).toEqual([provider.officialList, provider.source]);
      expect(response.body.sources_matched).not.toContain(provider.source);
      // The answer says which source failed and why; a provider is no official list, so it is complete.
      expect(response.body.sources_failed).toEqual([
        { source: provider.source, reason: failure.reason ?? 'error' },
      ]);
      expect(response.body.complete).toBe(true);
      // The official list answered: the provider is the one source that failed.
      expect(await service.sourceErrors(response.body.id)).toEqual([
        expect.objectContaining({ source: provider.source, error: expect.stringMatching(failure.error) }),
      ]);
      expect(service.server.requestsTo(ELSEWHERE)).toEqual([]);

      service.answerNormally();
      const again = await service.screen(provider.matched(n), { key });
      expect(again.body.cache_hit).toBe(false);
      expect(service.matchedFlags(again).length).toBeGreaterThan(0);
    },
  );
}

/** Health follows the circuit breaker: a provider that keeps failing is reported down and skipped. */
function healthTest(provider: ProviderUnderTest, ownService: OwnService): void {
  it(`reports ${provider.title} down in health once its circuit opens, and stops asking it`, async () => {
    await ownService({}, async (service) => {
      const { api, server } = service;
      server.serve(provider.path, { status: 503 });
      expect((await api.request('GET', '/v1/health')).body.sources[provider.source]).toBe('up');
      for (let n = 0; n < CIRCUIT_FAILURE_THRESHOLD; n++) await service.screen(provider.matched(n));
      const asked = server.requests.length;
      const health = await api.request('GET', '/v1/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        status: 'degraded',
        sources: { [provider.officialList]: 'up', [provider.source]: 'down' },
      });
      const skipped = await service.screen(provider.listed);
      expect(skipped.body.sources_queried).toContain(provider.source);
      expect(skipped.body.sources_matched).toEqual([provider.officialList]);
      expect(skipped.body.sources_failed).toEqual([{ source: provider.source, reason: 'unavailable' }]);
      expect(server.requests.length).toBe(asked);
    });
  }, 120_000);
}

/**
 * A provider that does not answer is cut off at its budget: the screening answers with the other
 * sources while the provider still has not, names it `timeout`, and once it answers again, finds
 * the match. The response arriving at all is the proof (the provider would answer in an hour):
 * nothing here depends on the machine's speed.
 */
function noAnswerTest(provider: ProviderUnderTest, ownService: OwnService): void {
  it(`answers 200 with the other sources when ${provider.title} does not answer within its budget, naming the timeout`, async () => {
    await ownService({ PROVIDER_TIMEOUT_MS: String(SHORT_BUDGET_MS) }, async (service) => {
      const { key } = await service.api.createAccount();
      service.server.delay(provider.path, NO_ANSWER_MS);
      const response = await service.screen(provider.matched(0), { key });
      expect(response.status).toBe(200);
      expect(response.body.sources_matched).not.toContain(provider.source);
      expect(response.body.sources_failed).toEqual([{ source: provider.source, reason: 'timeout' }]);
      expect(await service.sourceErrors(response.body.id)).toEqual([
        expect.objectContaining({
          source: provider.source,
          error: expect.stringMatching(`no answer within ${SHORT_BUDGET_MS} ms`),
        }),
      ]);
    });
  }, 120_000);
}
