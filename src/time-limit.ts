/**
 * A signal that aborts with the caller's, or with a TimeoutError after `ms`; `clear()` stops the
 * timer. Not `AbortSignal.any([caller, AbortSignal.timeout(ms)])`: on Node 20 the combined signal
 * holds the timeout signal weakly, and a garbage collection in between drops it, so the timeout
 * never fires (seen in the tests: a 600 ms attempt waited 5 s). `AbortSignal.timeout` also throws
 * on a fractional delay, which the remaining budget always is.
 */
export function timeLimited(caller: AbortSignal, ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(caller.reason);
  const timer = setTimeout(
    () => controller.abort(new DOMException(`no answer within ${Math.round(ms)} ms`, 'TimeoutError')),
    Math.max(1, Math.floor(ms)),
  );
  if (caller.aborted) onAbort();
  else caller.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}
