import { expect } from 'vitest';
import type { PlanId } from '../../src/accounts/plans.js';
import type { Flag } from '../../src/sources/flag.js';
import type { Backend } from './backends.js';
import { isolatedBackend } from './isolated-database.js';
import { ProviderServer } from './provider-server.js';
import { FIXTURE_LISTS_DIR } from './real-lists.js';
import { type ApiResponse, TestApp } from './test-app.js';

/** The committed excerpts of the official lists: small, so they load at once. */
const LISTS_DIR = FIXTURE_LISTS_DIR;
/**
 * The providers' time budget in these tests: generous, so that a provider answering normally is
 * never cut off by a loaded machine (a GLEIF search is three calls and a screening of the parent;
 * with a 1 s budget it lost to the clock once, at load 7, and its flag went missing). The test of
 * a provider that does not answer sets a short one on a service of its own.
 */
export const PROVIDER_TEST_BUDGET_MS = 30_000;

type ScreeningBody = Record<string, unknown>;

/** A remote provider as its integration tests start and break it. */
export interface ProviderUnderTest {
  /** Its source id, as in `sources_queried` and `/v1/health`. */
  source: string;
  /** Its name in test titles. */
  title: string;
  /** The title of its suite: what the provider is to the service. */
  suite: string;
  /** The official list loaded beside it: the other source, which must keep answering. */
  officialList: string;
  /** A name on that list which the provider is asked about too (and does not match). */
  listed: ScreeningBody;
  /** The settings that turn the provider on, pointed at the stand-in server. */
  env(server: ProviderServer): Record<string, string>;
  /** Serves the provider's normal answers (on a server just reset). */
  answerNormally(server: ProviderServer): void;
  /** The provider's first call, where the failures are served. */
  path: string;
  /**
   * A screening the provider matches when it answers normally; `n` makes it one not asked before,
   * for a provider that keeps its answers by name (GDELT).
   */
  matched(n: number): ScreeningBody;
  /** The provider's own answer cut short, and the body of its server error, as it sends them. */
  truncatedAnswer: string;
  serverErrorBody: unknown;
  /** Ways of failing of this provider only, tested beside the ones every provider shares. */
  ownFailures?: ProviderFailure[];
}

export interface ProviderFailure {
  /** How the provider fails, as the test title says it ("answers 500"). */
  label: string;
  /** Sets the failure up on the stand-in server, over its normal answers. */
  install(server: ProviderServer): void;
  /** What the screening records as the provider's error. */
  error: RegExp;
  /** The reason the answer gives in `sources_failed`; `error` unless said. */
  reason?: 'timeout' | 'error';
}

/**
 * The service running with one official list and the provider pointed at its stand-in server, as
 * the tests speak to it. The shared service of a suite is filled in once the suite starts.
 */
export class ProviderService {
  api!: TestApp;
  server!: ProviderServer;

  constructor(readonly provider: ProviderUnderTest) {}

  async start(backend: Backend, env: Record<string, string> = {}): Promise<void> {
    this.server = await ProviderServer.start();
    this.provider.answerNormally(this.server);
    this.api = await TestApp.start(backend, {
      env: {
        LISTS_DIR,
        LISTS_ENABLED: this.provider.officialList,
        PROVIDER_TIMEOUT_MS: String(PROVIDER_TEST_BUDGET_MS),
        ...this.provider.env(this.server),
        ...env,
      },
    });
    await this.api.runtime.ctx.lists.settled();
  }

  /** Stops what `start` started, also after a start that failed half-way. */
  async close(): Promise<void> {
    await this.api?.close();
    await this.server?.close();
  }

  /** Back to the provider's normal answers, with no request seen. */
  answerNormally(): void {
    this.server.reset();
    this.provider.answerNormally(this.server);
  }

  /** Screens as a fresh account of `plan`, or with `key`. */
  async screen(body: unknown, as: PlanId | { key: string } = 'professional'): Promise<ApiResponse> {
    const { key } = typeof as === 'string' ? await this.api.createAccount(as) : as;
    return this.api.request('POST', '/v1/screen', { key, body });
  }

  /** The provider's flags in a screening. */
  flags(response: ApiResponse): Flag[] {
    return response.body.flags.filter((flag: Flag) => flag.source === this.provider.source);
  }

  /**
   * The provider's normal answer: a 200 for which the official list and the provider were asked and
   * the provider alone matched. Returns the provider's flags.
   */
  matchedFlags(response: ApiResponse): Flag[] {
    expect(response.status).toBe(200);
    expect(response.body.sources_queried).toEqual([this.provider.officialList, this.provider.source]);
    expect(response.body.sources_matched).toEqual([this.provider.source]);
    return this.flags(response);
  }

  /** The provider's normal answer with exactly one flag of the provider: that flag. */
  onlyFlag(response: ApiResponse): Flag {
    const flags = this.matchedFlags(response);
    expect(flags).toHaveLength(1);
    return flags[0]!;
  }

  /** The source errors stored with a screening (what the operator sees, never the customer). */
  async sourceErrors(id: string): Promise<Record<string, unknown>[]> {
    const row = await this.api.runtime.ctx.db
      .selectFrom('screenings')
      .select('source_errors')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    return row.source_errors as Record<string, unknown>[];
  }
}

/** Runs `test` on a service, database and provider of its own (a setting or a state of its own). */
export async function withOwnService(
  shared: Backend,
  provider: ProviderUnderTest,
  env: Record<string, string>,
  test: (service: ProviderService) => Promise<void>,
): Promise<void> {
  const { backend, drop } = await isolatedBackend(shared);
  const service = new ProviderService(provider);
  try {
    await service.start(backend, env);
    await test(service);
  } finally {
    await service.close();
    await drop();
  }
}
