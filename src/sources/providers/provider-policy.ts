/**
 * The policies every remote provider shares (issue: "Every provider"), one named constant each.
 * The time budget and the concurrency are settings (PROVIDER_TIMEOUT_MS, PROVIDER_CONCURRENCY).
 */

/** Consecutive failures after which a provider is skipped (its circuit opens). */
export const CIRCUIT_FAILURE_THRESHOLD = 5;
/** How long an open circuit skips the provider before one trial request is let through. */
export const CIRCUIT_OPEN_MS = 30_000;
/** The largest answer read from a provider; a bigger one is a failure, never a partial read. */
export const PROVIDER_MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
/** Redirects followed within the same host (never to another host). */
export const PROVIDER_MAX_REDIRECTS = 3;
/**
 * The first attempt gets this share of the time budget, so that a timed-out first attempt still
 * leaves room for its one retry inside the budget.
 */
export const FIRST_ATTEMPT_BUDGET_SHARE = 0.6;
/** A retry waits a random 0 to this many ms first, so that instances do not retry in step. */
export const RETRY_JITTER_MAX_MS = 100;
/** A retry is not started with less than this left of the budget: it could not answer in time. */
export const RETRY_MIN_REMAINING_MS = 200;
/**
 * The orchestrator's own cut-off for a provider is its budget plus this margin: the provider's
 * budget decides, the margin only catches an adapter that ignores its signal.
 */
export const PROVIDER_TIMEOUT_MARGIN_MS = 100;
/** A provider whose recent answers took more than this share of its budget reports `slow`. */
export const SLOW_ANSWER_BUDGET_SHARE = 0.5;
/** How many recent answer times the health state is judged on. */
export const HEALTH_SAMPLE_SIZE = 20;
