import { millisecondsSince } from '../clock.js';
import type { Flag } from '../sources/flag.js';
import type { Source, SourceQuery } from '../sources/source.js';
import type { FailedSource, SourceFailureReason } from '../sources/source-failure.js';
import { failureReason } from './failure-reason.js';

/** A source that gave no answer, as stored for the operator (`error` may name internal details). */
export interface SourceFailure {
  source: string;
  error: string;
  timed_out: boolean;
  reason: SourceFailureReason;
}

export interface FanOutResult {
  /** Every flag at or above the threshold, strongest first. */
  flags: Flag[];
  sources_queried: string[];
  sources_matched: string[];
  source_errors: SourceFailure[];
  /** The failed sources as the answer reports them: id and reason only. */
  sources_failed: FailedSource[];
  /** False when an official list (a `direct_feed` source) gave no answer. */
  complete: boolean;
  /** Each queried source's answer time, for health statistics. */
  durations_ms: Record<string, number>;
}

class SourceTimeout extends Error {}

// Ties are broken by source id so that the same answers always come in the same order.
function strongestFirst(a: Flag, b: Flag): number {
  return b.match_score - a.match_score || a.source.localeCompare(b.source);
}

/**
 * One timer and one abort signal per distinct timeout of a fan-out (every list shares one), rather
 * than one per source: a screening asks seven or more sources, and a timer, signal and timeout
 * promise for each were a noticeable share of what a live screening allocates on the main thread.
 */
class Deadlines {
  private readonly byTimeout = new Map<
    number,
    { signal: AbortSignal; expired: Promise<never>; timer: NodeJS.Timeout }
  >();

  /** The source's answer, unless its timeout passes first: the race, not the source, decides. */
  race(source: Source, query: SourceQuery): Promise<Flag[]> {
    const deadline = this.deadline(source.timeoutMs);
    return Promise.race([source.screen(query, deadline.signal), deadline.expired]);
  }

  clear(): void {
    for (const { timer } of this.byTimeout.values()) clearTimeout(timer);
  }

  private deadline(timeoutMs: number) {
    let deadline = this.byTimeout.get(timeoutMs);
    if (deadline) return deadline;
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new SourceTimeout(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    // Every source bound by it may have answered already when it passes: nobody else listens then.
    expired.catch(() => {});
    deadline = { signal: controller.signal, expired, timer: timer! };
    this.byTimeout.set(timeoutMs, deadline);
    return deadline;
  }
}

/**
 * Asks every source at once, each within its own timeout. A failing or slow source is recorded
 * and left out; the caller decides what "every source failed" means.
 */
export async function fanOut(sources: readonly Source[], query: SourceQuery): Promise<FanOutResult> {
  const durations: Record<string, number> = {};
  const deadlines = new Deadlines();
  const outcomes = await Promise.allSettled(
    sources.map(async (source) => {
      const started = performance.now();
      try {
        return await deadlines.race(source, query);
      } finally {
        durations[source.id] = millisecondsSince(started);
      }
    }),
  ).finally(() => deadlines.clear());
  const flags: Flag[] = [];
  const matched: string[] = [];
  const errors: SourceFailure[] = [];
  let complete = true;
  outcomes.forEach((outcome, i) => {
    const source = sources[i]!;
    if (outcome.status === 'rejected') {
      const reason = outcome.reason;
      const timedOut = reason instanceof SourceTimeout;
      errors.push({
        source: source.id,
        error: reason instanceof Error ? reason.message : String(reason),
        timed_out: timedOut,
        reason: timedOut ? 'timeout' : failureReason(reason),
      });
      if (source.kind === 'direct_feed') complete = false;
      return;
    }
    const kept = outcome.value
      .filter((f) => f.match_score >= query.threshold)
      .sort(strongestFirst)
      .slice(0, query.limit);
    if (kept.length > 0) matched.push(source.id);
    flags.push(...kept);
  });
  flags.sort(strongestFirst);
  return {
    flags,
    sources_queried: sources.map((s) => s.id),
    sources_matched: matched,
    source_errors: errors,
    sources_failed: errors.map(({ source, reason }) => ({ source, reason })),
    complete,
    durations_ms: durations,
  };
}
