import type { Clock } from '../../clock.js';
import { CIRCUIT_FAILURE_THRESHOLD, CIRCUIT_OPEN_MS } from './provider-policy.js';

export type CircuitState = 'closed' | 'open' | 'half_open';

/**
 * Stops asking a provider that keeps failing: after `failureThreshold` consecutive failures the
 * circuit opens and every request is refused at once for `openMs`; then one trial request goes
 * through (half open), and its outcome closes the circuit or opens it for another period.
 */
export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openedAt: number | undefined;
  private trialInFlight = false;

  constructor(
    private readonly clock: Clock,
    private readonly failureThreshold = CIRCUIT_FAILURE_THRESHOLD,
    private readonly openMs = CIRCUIT_OPEN_MS,
  ) {}

  state(): CircuitState {
    if (this.openedAt === undefined) return 'closed';
    return this.clock.now().getTime() - this.openedAt >= this.openMs ? 'half_open' : 'open';
  }

  /** Whether a request may go now; in the half-open state only the first caller gets through. */
  tryAcquire(): boolean {
    const state = this.state();
    if (state === 'closed') return true;
    if (state === 'open' || this.trialInFlight) return false;
    this.trialInFlight = true;
    return true;
  }

  succeeded(): void {
    this.consecutiveFailures = 0;
    this.openedAt = undefined;
    this.trialInFlight = false;
  }

  failed(): void {
    this.consecutiveFailures += 1;
    if (this.trialInFlight || this.consecutiveFailures >= this.failureThreshold) {
      this.openedAt = this.clock.now().getTime();
    }
    this.trialInFlight = false;
  }

  /** A request that ended without an outcome (the caller gave up): a trial may go again. */
  released(): void {
    this.trialInFlight = false;
  }
}
