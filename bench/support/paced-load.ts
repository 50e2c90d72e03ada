import http from 'node:http';

/** What a paced run answered: requests per second, latencies in milliseconds, non-200 answers. */
export interface PacedFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** POST requests to `url` + `path`, with `bodies` taken in turn. */
export interface PacedLoad {
  url: string;
  path: string;
  headers: Record<string, string>;
  bodies: readonly string[];
  /** Requests per second, evenly spaced. */
  rate: number;
  durationSeconds: number;
  /** At most this many requests in flight (and connections open), as autocannon's connections. */
  connections: number;
}

/**
 * An open-loop load at an even rate: request i is due at start + i / rate, whatever the answers
 * before it, and its latency runs from that due time to the end of its response, so time spent
 * waiting for a free connection counts (no coordinated omission). This is what a "p99 at 600
 * requests per second" means. autocannon's `overallRate` cannot measure it: each connection sends
 * its share of a second back to back when the second starts and then waits (lib/httpClient.js,
 * `reqsMadeThisSecond`), so its latencies measure the queue of that burst.
 */
export async function pacedLoad(load: PacedLoad): Promise<PacedFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: load.connections });
  const total = Math.round(load.rate * load.durationSeconds);
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const send = (due: number, body: string) =>
    new Promise<void>((resolve) => {
      const request = http.request(
        `${load.url}${load.path}`,
        { method: 'POST', headers: load.headers, agent },
        (response) => {
          response.resume();
          response.on('end', () => {
            if (response.statusCode !== 200) errors++;
            latencies.push(performance.now() - due);
            resolve();
          });
        },
      );
      request.on('error', () => {
        errors++;
        resolve();
      });
      request.end(body);
    });
  const inFlight: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      // Every request due by now goes out; the agent queues those beyond `connections`.
      while (next < total && started + (next * 1000) / load.rate <= now) {
        const due = started + (next * 1000) / load.rate;
        inFlight.push(send(due, load.bodies[next % load.bodies.length]!));
        next++;
      }
      if (next < total) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Number((latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0).toFixed(1));
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}
