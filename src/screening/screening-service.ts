import type { RawBuilder } from 'kysely';
import type { AuthenticatedKey } from '../accounts/key-authenticator.js';
import { PLANS } from '../accounts/plans.js';
import type { UsageSubject } from '../accounts/usage.js';
import type { UsageLedger } from '../accounts/usage-ledger.js';
import { type Clock, millisecondsSince } from '../clock.js';
import { notFound, ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import type { Source } from '../sources/source.js';
import type { Db } from '../store/database.js';
import type { ResultCache } from '../store/result-cache.js';
import { screeningCacheKey } from './cache-key.js';
import { fanOut } from './fan-out.js';
import { assessRisk } from './risk.js';
import { FLAGS_PER_SOURCE_LIMIT, RESULT_CACHE_TTL_MS } from './screening-policy.js';
import { resolveScreeningRequest, type ScreeningRequest } from './screening-request.js';
import type { ScreeningResult, StoredResult } from './screening-result.js';
import { findScreening, retentionCutoff, storeScreening } from './screening-store.js';

export interface ScreeningServiceDeps {
  db: Db;
  clock: Clock;
  usage: UsageLedger;
  cache: ResultCache;
  /** The sources configured on this instance (read per request: lists may be enabled at run time). */
  sources: () => readonly Source[];
  retentionMonths: number;
  /** What else a live screening writes (the webhook outbox); nothing when absent. */
  followUp?: ScreeningFollowUp;
}

/**
 * Work that must happen exactly when a live screening is stored (never for cache hits): its
 * statements run in the screening's own statement, so they are written if and only if it is.
 */
export interface ScreeningFollowUp {
  /** What to write with this screening; undefined when there is nothing to do. */
  prepare(subject: UsageSubject, result: StoredResult, resultJson: string): Promise<FollowUpWork | undefined>;
}

export interface FollowUpWork {
  /** Named statements to run in the screening's statement (`... FROM admitted`). */
  statements: Record<string, RawBuilder<unknown>>;
  /** Called once the screening and these statements are stored. */
  stored(): void;
}

/** Who a screening is counted for: the caller's key, or the key that submitted a batch. */
export type ScreeningSubject = Pick<AuthenticatedKey, 'accountId' | 'keyId' | 'plan'>;

/**
 * Statements to run in the very statement that counts this screening (and stores it when live),
 * built from its result: a batch item records its outcome this way, exactly when it is counted.
 */
export type ScreeningRecordedWith = (result: StoredResult) => Record<string, RawBuilder<unknown>>;

/**
 * The product's main job: normalise the query, ask every selected source at once, score the risk,
 * count and store the screening, and answer repeated questions from the cache.
 */
export class ScreeningService {
  constructor(private readonly deps: ScreeningServiceDeps) {}

  async screen(
    key: ScreeningSubject,
    request: ScreeningRequest,
    recordedWith?: ScreeningRecordedWith,
  ): Promise<ScreeningResult> {
    const started = performance.now();
    const resolved = resolveScreeningRequest(request, PLANS[key.plan], this.deps.sources());
    const subject: UsageSubject = { accountId: key.accountId, keyId: key.keyId, plan: key.plan };
    await this.deps.usage.assertAvailable(subject);

    const versions: Record<string, string> = {};
    for (const source of resolved.sources) versions[source.id] = source.version() ?? 'unversioned';
    const cacheKey = screeningCacheKey(
      key.accountId,
      resolved.entity,
      resolved.type,
      resolved.options,
      versions,
    );
    const cached = await this.deps.cache.get(cacheKey);
    if (cached !== undefined) {
      const stored = JSON.parse(cached) as StoredResult;
      await this.deps.usage.count(subject, recordedWith?.(stored));
      return { ...stored, cache_hit: true, duration_ms: millisecondsSince(started) };
    }

    const outcome = await fanOut(resolved.sources, {
      entity: resolved.entity,
      type: resolved.type,
      threshold: resolved.options.threshold,
      limit: FLAGS_PER_SOURCE_LIMIT,
    });
    if (outcome.source_errors.length === resolved.sources.length) {
      // Source ids only: error messages may carry internal addresses (they are in the logs).
      const failed = outcome.source_errors.map((e) => e.source).join(', ');
      throw new ServiceError('internal', `Every selected source failed or timed out: ${failed}.`);
    }
    const result: StoredResult = {
      id: newId(),
      entity: resolved.entity,
      ...assessRisk(outcome.flags),
      flags: outcome.flags,
      sources_queried: outcome.sources_queried,
      sources_matched: outcome.sources_matched,
      timestamp: this.deps.clock.now().toISOString(),
      duration_ms: millisecondsSince(started),
    };
    // Serialised once: stored, cached and sent to webhooks as these same bytes.
    const resultJson = JSON.stringify(result);
    const followUp = await this.deps.followUp?.prepare(subject, result, resultJson);
    await storeScreening(
      this.deps.usage,
      subject,
      {
        result,
        resultJson,
        type: resolved.type,
        options: resolved.options,
        sourceErrors: outcome.source_errors,
        sourceVersions: versions,
      },
      { ...followUp?.statements, ...recordedWith?.(result) },
    );
    followUp?.stored();
    // An answer missing a failed source is not kept: the next request asks that source again.
    if (outcome.source_errors.length === 0) {
      await this.deps.cache.set(cacheKey, resultJson, RESULT_CACHE_TTL_MS);
    }
    return { ...result, cache_hit: false };
  }

  async get(accountId: string, id: string): Promise<ScreeningResult> {
    const notBefore = retentionCutoff(this.deps.clock.now(), this.deps.retentionMonths);
    const stored = await findScreening(this.deps.db, accountId, id, notBefore);
    if (!stored) throw notFound('The screening');
    return { ...stored, cache_hit: false };
  }
}
