/**
 * Counts attempts (of sign-in) per subject over a fixed window that starts with the first attempt;
 * once `maxAttempts` are counted, further ones are refused until the window ends. An attempt is
 * counted before the work it guards, in one atomic step, so a burst of parallel attempts cannot
 * all pass a check that each of them read before any was counted.
 */
export interface AttemptLimiter {
  /** Counts an attempt: whole seconds to wait when it is refused, or undefined when it may go on. */
  take(subject: string): Promise<number | undefined>;
  /** Gives back an attempt that `take` let through and that turned out not to count. */
  giveBack(subject: string): Promise<void>;
  /** Forgets the subject's attempts. */
  reset(subject: string): Promise<void>;
}
