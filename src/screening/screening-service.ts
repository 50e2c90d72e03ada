import type { RawBuilder } from 'kysely';
import type { AuthenticatedKey } from '../accounts/key-authenticator.js';
import { PLANS, type PlanId } from '../accounts/plans.js';
import type { UsageSubject } from '../accounts/usage.js';
import type { UsageLedger } from '../accounts/usage-ledger.js';
import { type Clock, isoDay, millisecondsSince } from '../clock.js';
import { notFound, ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import type { Source } from '../sources/source.js';
import type { Db } from '../store/database.js';
import type { ResultCache } from '../store/result-cache.js';
import { screeningCacheKey } from './cache-key.js';
import { applyDecisions, riskBearing } from './decisions/applied-decisions.js';
import { DecidedSubjects } from './decisions/decided-subjects.js';
import { fanOut } from './fan-out.js';
import { identifyFlags } from './flag-identity.js';
import { GroupCommit, writeTogetherThenAlone } from './group-commit.js';
import { assignParties } from './parties.js';
import { assessRisk } from './risk.js';
import { hasFacts } from './screening-facts.js';
import {
  listScreenings,
  type ScreeningHistoryFilter,
  type ScreeningHistoryPage,
} from './screening-history.js';
import { outcomeOfError, type ScreeningObserver } from './screening-observer.js';
import { FLAGS_PER_SOURCE_LIMIT, RESULT_CACHE_TTL_MS } from './screening-policy.js';
import { resolveScreeningRequest, type ScreeningRequest } from './screening-request.js';
import {
  answerBytes,
  decodeResult,
  encodeResult,
  looksLikeStoredResult,
  type ScreeningResult,
  type StoredResult,
} from './screening-result.js';
import { findScreening, retentionCutoff, type ScreeningRecord, storeScreenings } from './screening-store.js';
import { subjectKey } from './screening-subject.js';

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
  /** Told of every outcome, cache lookup and source answer (metrics); nothing when absent. */
  observer?: ScreeningObserver;
  /** Reads the subjects' standing decisions; absent: from the database on every screening. */
  decided?: DecidedSubjects;
}

/**
 * Work that must happen exactly when live screenings are stored (never for cache hits): its
 * statements run in the screenings' own statement, so they are written if and only if they are.
 */
export interface ScreeningFollowUp {
  /**
   * What to write with `liveScreenings` live screenings of `subject` (none when 0: cache hits
   * only); undefined when there is nothing to do. Its statements read the screenings from the
   * statement that stores them (`STORED_SCREENINGS`).
   */
  prepare(subject: UsageSubject, liveScreenings: number): Promise<FollowUpWork | undefined>;
}

export interface FollowUpWork {
  /** Named statements to run in the screenings' statement (`... FROM admitted`). */
  statements: Record<string, RawBuilder<unknown>>;
  /** Called once the screenings and these statements are stored. */
  stored(): void;
}

/**
 * Who a screening is counted for: the caller's key, the key that submitted a batch, or (no key) a
 * dashboard user screening in the console.
 */
export type ScreeningSubject =
  | Pick<AuthenticatedKey, 'accountId' | 'keyId' | 'plan'>
  // The dashboard's console (its user), or background work of a monitor made there (none).
  | { accountId: string; keyId: null; plan: PlanId; userId: string | null };

/**
 * Statements to run in the very statement that counts a group's screenings (and stores the live
 * ones), built from their results (`index`: the request's position in the group): batch items
 * record their outcome this way, exactly when they are counted.
 */
export type GroupRecordedWith = (
  screened: readonly { index: number; result: StoredResult }[],
) => Record<string, RawBuilder<unknown>>;

/**
 * A screening stored only with what the caller makes of it, which may still be refused (a monitor
 * at its plan's limit): `keep` opens a transaction, checks under a lock what it must, and calls
 * `store` to count and store the screening in that transaction; its refusal (or any failure) rolls
 * the count back with the rest. A refused screening costs nothing.
 */
export type KeptWith = (result: StoredResult, store: (trx: Db) => Promise<void>) => Promise<void>;

/**
 * A request to screen, with the id of the request whose audit row records it (an API or dashboard
 * request's id, or the id background work audits under): stored with the screening, so that
 * `audit verify` finds a stored screening whose audit row was lost.
 */
export interface AuditedScreeningRequest {
  request: ScreeningRequest;
  requestId: string;
}

/** A screening up to storing: a live one with its record, or a cache hit as the cached bytes. */
type Evaluated = { started: number } & (
  | { cached: true; resultBytes: Buffer }
  | { cached: false; record: ScreeningRecord; cacheKey: string; cacheable: boolean }
);

/** A screening's answer as the route sends it: UTF-8 JSON, with its `duration_ms` measured by the caller. */
export interface ScreeningAnswer {
  json(durationMs: number): Buffer;
}

/**
 * The product's main job: normalise the query, ask every selected source at once, score the risk,
 * count and store the screening, and answer repeated questions from the cache.
 */
export class ScreeningService {
  /** Concurrent screenings of one subject are counted and stored together (see GroupCommit). */
  private readonly commits = new GroupCommit<{ subject: UsageSubject; evaluated: Evaluated }>((items) =>
    this.store(
      items[0]!.subject,
      items.map((i) => i.evaluated),
    ),
  );

  private readonly decided: DecidedSubjects;

  constructor(private readonly deps: ScreeningServiceDeps) {
    this.decided = deps.decided ?? new DecidedSubjects(deps.db, false);
  }

  /** Whether a source of adverse media is configured here (the dashboard offers it only then). */
  hasAdverseMedia(): boolean {
    return this.deps.sources().some((source) => source.kind === 'adverse_media');
  }

  /** Screens, counts and stores; `keptWith`: only together with what the caller stores (see KeptWith). */
  async screen(
    key: ScreeningSubject,
    request: AuditedScreeningRequest,
    keptWith?: KeptWith,
  ): Promise<ScreeningResult> {
    return answer(await this.screenOnce(key, request, keptWith));
  }

  /**
   * `screen` for an answer sent as it is: as JSON bytes, so a cache hit is never decoded or parsed
   * and a live result never serialised or encoded a second time (see `answerBytes`).
   */
  async screenToJson(key: ScreeningSubject, request: AuditedScreeningRequest): Promise<ScreeningAnswer> {
    const evaluated = await this.screenOnce(key, request);
    return { json: (durationMs) => answerBytes(storedBytesOf(evaluated), evaluated.cached, durationMs) };
  }

  private async screenOnce(
    key: ScreeningSubject,
    request: AuditedScreeningRequest,
    keptWith?: KeptWith,
  ): Promise<Evaluated> {
    const subject = subjectOf(key);
    let evaluated: Evaluated;
    try {
      evaluated = await this.evaluate(subject, request);
      if (keptWith) await this.storeKept(subject, evaluated, keptWith);
      else await this.commits.submit(commitKey(subject), { subject, evaluated });
    } catch (error) {
      this.deps.observer?.screened(outcomeOfError(error));
      throw error;
    }
    this.deps.observer?.screened(evaluated.cached ? 'cached' : 'live');
    this.cacheLive([evaluated]);
    return evaluated;
  }

  /**
   * Screens several requests of one key (batch items) exactly as `screen` would, one by one, but
   * counts and stores them in one statement: one round trip and one quota increment for the group.
   * When the month has no room for the whole group, each is stored alone until it is full (a lone
   * item too: its outcome is then `quota-exceeded`). Each request's outcome is its result, or the
   * ServiceError `screen` would have thrown.
   */
  async screenGroup(
    key: ScreeningSubject,
    requests: readonly AuditedScreeningRequest[],
    recordedWith?: GroupRecordedWith,
  ): Promise<Array<ScreeningResult | ServiceError>> {
    const subject = subjectOf(key);
    // The early quota check once for the group: the statement storing it is the exact one.
    const refused = await this.deps.usage.assertAvailable(subject).then(() => undefined, serviceErrorOnly);
    const outcomes = await Promise.all(
      requests.map((request) =>
        refused ? Promise.resolve(refused) : this.evaluate(subject, request, false).catch(serviceErrorOnly),
      ),
    );
    const screened = outcomes.flatMap((o, index) =>
      o instanceof ServiceError ? [] : [{ index, evaluated: o }],
    );
    const recorded = (group: readonly (typeof screened)[number][]) => () =>
      recordedWith?.(group.map(({ index, evaluated }) => ({ index, result: storedResultOf(evaluated) }))) ??
      {};
    // Only a full month makes members' outcomes differ; any other failure fails the whole group.
    const stored = await writeTogetherThenAlone(
      screened,
      (group) =>
        this.store(
          subject,
          group.map((s) => s.evaluated),
          recorded(group),
        ),
      isQuotaExceeded,
    );
    stored.forEach((outcome, k) => {
      if (outcome.written) return;
      if (!isQuotaExceeded(outcome.error)) throw outcome.error;
      outcomes[screened[k]!.index] = outcome.error;
    });
    this.cacheLive(screened.filter((_, k) => stored[k]!.written).map((s) => s.evaluated));
    const observer = this.deps.observer;
    if (observer)
      for (const o of outcomes)
        observer.screened(o instanceof ServiceError ? outcomeOfError(o) : o.cached ? 'cached' : 'live');
    return outcomes.map((o) => (o instanceof ServiceError ? o : answer(o)));
  }

  /**
   * A monitor's re-screening after a list change: screened live (never from the cache, whose
   * answer may predate the change), and not counted against the quota. `alongside` gives, from
   * the result, the statements to run in the statement that stores it (the alerts it raises), or
   * undefined when the result is not worth keeping (it raises none): then it is not stored.
   * `afterStore` then runs in the transaction that stored it (the alerts' audit rows), so what it
   * writes commits with the screening or not at all.
   */
  async screenUncounted(
    subject: UsageSubject,
    request: AuditedScreeningRequest,
    alongside: (result: StoredResult) => Record<string, RawBuilder<unknown>> | undefined,
    afterStore: (trx: Db, result: StoredResult) => Promise<void>,
  ): Promise<{ result: StoredResult; stored: boolean }> {
    const evaluated = await this.evaluate(subject, request, false, false);
    if (evaluated.cached) throw new Error('a screening asked to be live came from the cache');
    const { result } = evaluated.record;
    const statements = alongside(result);
    if (statements === undefined) return { result, stored: false };
    await this.deps.db.transaction().execute(async (trx) => {
      await storeScreenings(this.deps.usage, subject, [evaluated.record], 0, statements, trx);
      await afterStore(trx, result);
    });
    return { result, stored: true };
  }

  /** Everything up to storing: validation, the early quota check, the cache, or the sources. */
  private async evaluate(
    subject: UsageSubject,
    { request, requestId }: AuditedScreeningRequest,
    checkQuota = true,
    useCache = true,
  ): Promise<Evaluated> {
    const started = performance.now();
    const resolved = resolveScreeningRequest(
      request,
      PLANS[subject.plan],
      this.deps.sources(),
      isoDay(this.deps.clock.now()),
    );
    const party = subjectKey(resolved);
    // The subject's decisions are part of the answer, and so of its cache key: read on every
    // screening, alongside the quota check (from memory on the embedded database, see DecidedSubjects).
    const [, standing] = await Promise.all([
      checkQuota ? this.deps.usage.assertAvailable(subject) : undefined,
      this.decided.standing(subject.accountId, party),
    ]);

    const versions: Record<string, string> = {};
    for (const source of resolved.sources) versions[source.id] = source.version() ?? 'unversioned';
    const stale = resolved.sources.flatMap((source) => source.staleness?.() ?? []);
    const cacheKey = screeningCacheKey(
      subject.accountId,
      resolved,
      versions,
      stale,
      standing.map((d) => d.id),
    );
    const cached = useCache ? await this.deps.cache.get(cacheKey) : undefined;
    const hit = cached !== undefined && looksLikeStoredResult(cached);
    if (useCache) this.deps.observer?.cacheLookup(hit);
    if (hit) return { cached: true, resultBytes: cached, started };

    const outcome = await fanOut(resolved.sources, {
      entity: resolved.entity,
      type: resolved.type,
      threshold: resolved.options.threshold,
      limit: FLAGS_PER_SOURCE_LIMIT,
      ...(hasFacts(resolved.facts) ? { facts: resolved.facts } : {}),
      identifiersOnly: resolved.identifiersOnly,
    });
    this.deps.observer?.sourcesAnswered(outcome.durations_ms, outcome.sources_failed);
    if (outcome.source_errors.length === resolved.sources.length) {
      // Ids and reasons only: error messages may carry internal addresses (they are in the logs).
      const failed = outcome.sources_failed.map((f) => `${f.source} (${f.reason})`).join(', ');
      // Nothing was checked: no answer at all, rather than a clean one.
      throw new ServiceError('sources-failed', `Every selected source failed: ${failed}.`, [], {
        sources_failed: outcome.sources_failed,
      });
    }
    const flags = applyDecisions(identifyFlags(assignParties(outcome.flags)), standing);
    const result: StoredResult = {
      id: newId(),
      entity: resolved.entity,
      ...(resolved.reference !== undefined ? { reference: resolved.reference } : {}),
      request: resolved.request,
      // A flag cleared as a false positive is still reported, but is no risk.
      ...assessRisk(riskBearing(flags)),
      flags,
      sources_queried: outcome.sources_queried,
      sources_matched: outcome.sources_matched,
      sources_failed: outcome.sources_failed,
      complete: outcome.complete,
      sources_stale: stale,
      // duration_ms stays the last key: answers are made from these bytes by replacing it (answerBytes).
      timestamp: this.deps.clock.now().toISOString(),
      duration_ms: millisecondsSince(started),
    };
    const record: ScreeningRecord = {
      result,
      // Serialised once: stored (the webhook body is made from the stored row), cached and answered as these same bytes.
      resultBytes: encodeResult(result),
      type: resolved.type,
      options: resolved.options,
      sourceErrors: outcome.source_errors,
      sourceVersions: versions,
      subjectKey: party,
      reference: resolved.reference,
      requestId,
    };
    // An answer missing a failed source is not kept: the next request asks that source again.
    return {
      cached: false,
      record,
      cacheKey,
      cacheable: outcome.source_errors.length === 0,
      started,
    };
  }

  /** Counts the screenings and stores the live ones with their follow-up, in one statement. */
  private async store(
    subject: UsageSubject,
    evaluated: readonly Evaluated[],
    recorded?: () => Record<string, RawBuilder<unknown>>,
  ): Promise<void> {
    const live = evaluated.flatMap((e) => (e.cached ? [] : [e]));
    const records = live.map((e) => e.record);
    const followUp = await this.deps.followUp?.prepare(subject, records.length);
    await storeScreenings(this.deps.usage, subject, records, evaluated.length, {
      ...followUp?.statements,
      ...recorded?.(),
    });
    followUp?.stored();
  }

  /**
   * Counts and stores one screening in the transaction `keptWith` opens. The follow-up is prepared
   * before it: on the embedded database the transaction holds the only connection.
   */
  private async storeKept(subject: UsageSubject, evaluated: Evaluated, keptWith: KeptWith): Promise<void> {
    const records = evaluated.cached ? [] : [evaluated.record];
    const followUp = await this.deps.followUp?.prepare(subject, records.length);
    await keptWith(storedResultOf(evaluated), (trx) =>
      storeScreenings(this.deps.usage, subject, records, 1, { ...followUp?.statements }, trx),
    );
    followUp?.stored();
  }

  /**
   * Caches stored live screenings, once stored (never a result that was not counted), each write
   * on its own: not inside the group's write, whose next statement would otherwise wait for one
   * cache round trip per member, which under many connections was a large part of its time.
   * The writes are sent, not awaited: the answer is ready and a write never fails its caller, so
   * waiting for Redis to acknowledge it only delayed every live answer by a round trip (up to the
   * command timeout when Redis stalls). Sent before the answer, a write still comes before any
   * request its answer prompts on this instance (one connection, in order); elsewhere, a write not
   * yet arrived only costs a screening done live again.
   */
  private cacheLive(evaluated: readonly Evaluated[]): void {
    for (const e of evaluated) {
      // A cache never fails its caller (ResultCache); the catch keeps a broken one from ending the process.
      if (!e.cached && e.cacheable)
        this.deps.cache.set(e.cacheKey, e.record.resultBytes, RESULT_CACHE_TTL_MS).catch(() => {});
    }
  }

  /** The account's stored screenings, newest first, a page at a time (`before`: the previous page's cursor). */
  recent(
    accountId: string,
    page: { before?: string | undefined; limit?: number | undefined } = {},
    filter: ScreeningHistoryFilter = {},
  ): Promise<ScreeningHistoryPage> {
    const notBefore = retentionCutoff(this.deps.clock.now(), this.deps.retentionMonths);
    return listScreenings(this.deps.db, accountId, notBefore, page, filter);
  }

  async get(accountId: string, id: string): Promise<ScreeningResult> {
    const notBefore = retentionCutoff(this.deps.clock.now(), this.deps.retentionMonths);
    const stored = await findScreening(this.deps.db, accountId, id, notBefore);
    if (!stored) throw notFound('The screening');
    return { ...stored, cache_hit: false };
  }
}

function subjectOf(key: ScreeningSubject): UsageSubject {
  return {
    accountId: key.accountId,
    keyId: key.keyId,
    plan: key.plan,
    userId: 'userId' in key ? key.userId : null,
  };
}

/** Screenings stored in one statement share everything the statement takes from its subject. */
function commitKey(subject: UsageSubject): string {
  return `${subject.accountId}|${subject.keyId ?? ''}|${subject.userId ?? ''}|${subject.plan}`;
}

function storedBytesOf(evaluated: Evaluated): Buffer {
  return evaluated.cached ? evaluated.resultBytes : evaluated.record.resultBytes;
}

function storedResultOf(evaluated: Evaluated): StoredResult {
  return evaluated.cached ? decodeResult(evaluated.resultBytes) : evaluated.record.result;
}

function answer(evaluated: Evaluated): ScreeningResult {
  return evaluated.cached
    ? { ...storedResultOf(evaluated), cache_hit: true, duration_ms: millisecondsSince(evaluated.started) }
    : { ...evaluated.record.result, cache_hit: false };
}

function isQuotaExceeded(error: unknown): error is ServiceError {
  return error instanceof ServiceError && error.code === 'quota-exceeded';
}

/** A request the service refuses is that request's outcome; anything else fails the whole group. */
function serviceErrorOnly(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  throw error;
}
