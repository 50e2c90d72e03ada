import type { Clock } from '../../clock.js';
import type { QueryType } from '../../matching/index.js';
import type { Flag } from '../flag.js';
import type { Source, SourceHealth, SourceKind, SourceQuery } from '../source.js';
import { CircuitBreaker, type CircuitState } from './circuit-breaker.js';
import { ProviderError } from './provider-error.js';
import {
  HEALTH_SAMPLE_SIZE,
  PROVIDER_TIMEOUT_MARGIN_MS,
  SLOW_ANSWER_BUDGET_SHARE,
} from './provider-policy.js';

/** What a provider adapter does: turn one screening question into flags, or throw. */
export interface ProviderAdapter {
  id: string;
  kind: SourceKind;
  search(query: SourceQuery, signal: AbortSignal): Promise<Flag[]>;
  /** Whether the provider can answer a query of this type (see `Source.appliesTo`); absent: every type. */
  appliesTo?(type: QueryType): boolean;
  /**
   * The version of the data behind an answer, when part of it is local (GLEIF screens parents
   * against the official lists): a cached result then ends when that data changes.
   */
  version?(): string | undefined;
}

export interface ProviderSourceOptions {
  clock: Clock;
  /** The provider's time budget (its HTTP calls use the same one). */
  budgetMs: number;
}

/**
 * A remote provider as a screening source: the adapter behind a circuit breaker (a provider that
 * keeps failing is skipped at once and reported `down`), with its health judged on its recent
 * answer times. A remote answer has no list version: unless the adapter states the version of the
 * local data it uses, the cache key records it as unversioned and the result cache's lifetime
 * bounds how stale an answer can be.
 */
export class ProviderSource implements Source {
  readonly id: string;
  readonly kind: SourceKind;
  readonly timeoutMs: number;
  private readonly breaker: CircuitBreaker;
  private readonly recentMs: number[] = [];

  constructor(
    private readonly adapter: ProviderAdapter,
    private readonly options: ProviderSourceOptions,
  ) {
    this.id = adapter.id;
    this.kind = adapter.kind;
    this.timeoutMs = options.budgetMs + PROVIDER_TIMEOUT_MARGIN_MS;
    this.breaker = new CircuitBreaker(options.clock);
  }

  async screen(query: SourceQuery, signal: AbortSignal): Promise<Flag[]> {
    if (!this.breaker.tryAcquire()) {
      throw new ProviderError(this.id, 'circuit_open', 'skipped after repeated failures; retried shortly');
    }
    const started = performance.now();
    try {
      const flags = await this.adapter.search(query, signal);
      this.breaker.succeeded();
      this.record(performance.now() - started);
      return flags;
    } catch (error) {
      this.breaker.failed();
      this.record(performance.now() - started);
      throw error;
    }
  }

  health(): SourceHealth {
    if (this.breaker.state() === 'open') return 'down';
    if (this.recentMs.length === 0) return 'up';
    const sorted = [...this.recentMs].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return median > this.options.budgetMs * SLOW_ANSWER_BUDGET_SHARE ? 'slow' : 'up';
  }

  circuitState(): CircuitState {
    return this.breaker.state();
  }

  appliesTo(type: QueryType): boolean {
    return this.adapter.appliesTo?.(type) ?? true;
  }

  version(): string | undefined {
    return this.adapter.version?.();
  }

  private record(ms: number): void {
    this.recentMs.push(ms);
    if (this.recentMs.length > HEALTH_SAMPLE_SIZE) this.recentMs.shift();
  }
}
