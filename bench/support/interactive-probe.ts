/** Latencies of the requests a probe sent, in milliseconds, with the non-2xx answers. */
export interface ProbeFigures {
  count: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

/** A steady trickle of requests, as one interactive user sends them, until `stop`. */
export interface InteractiveProbe {
  stop(): Promise<ProbeFigures>;
}

/**
 * Sends `request(i)` every `intervalMs`, whatever the answers before it, and times each from when
 * it was due to the end of its answer: a request that waits behind a busy service counts its
 * wait (no coordinated omission). What a user of another account sees while a batch runs.
 */
export function startProbe(intervalMs: number, request: (i: number) => Promise<Response>): InteractiveProbe {
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const due = started + sent * intervalMs;
    const i = sent++;
    const answered = request(i)
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status >= 300) errors++;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => {
        latencies.push(performance.now() - due);
        inFlight.delete(answered);
      });
    inFlight.add(answered);
    timer = setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
  };
  tick();
  return {
    async stop() {
      clearTimeout(timer);
      await Promise.all([...inFlight]);
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, errors };
    },
  };
}
