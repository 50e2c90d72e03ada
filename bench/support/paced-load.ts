import net from 'node:net';
import { HTTPParser } from 'http-parser-js';

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

/** A request waiting for a connection or on one: when it was due and its bytes. */
interface DueRequest {
  due: number;
  text: string;
}

/**
 * An open-loop load at an even rate: request i is due at start + i / rate, whatever the answers
 * before it, and its latency runs from that due time to the end of its response, so time spent
 * waiting for a free connection counts (no coordinated omission). This is what a "p99 at 600
 * requests per second" means. autocannon's `overallRate` cannot measure it: each connection sends
 * its share of a second back to back when the second starts and then waits (lib/httpClient.js,
 * `reqsMadeThisSecond`), so its latencies measure the queue of that burst.
 *
 * It shares the machine with the service it measures, so it is written as autocannon is: its own
 * sockets, each request written as one string, and autocannon's response parser (http-parser-js).
 * Node's http client took about twice the CPU per request: CPU the service it measures lacked.
 */
export async function pacedLoad(load: PacedLoad): Promise<PacedFigures> {
  const target = new URL(load.url);
  const head =
    `POST ${load.path} HTTP/1.1\r\nhost: ${target.host}\r\n` +
    Object.entries(load.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
  const total = Math.round(load.rate * load.durationSeconds);
  const latencies: number[] = [];
  let errors = 0;
  let settled = 0;
  let allSettled: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    allSettled = resolve;
  });

  const waiting: DueRequest[] = [];
  const idle: PacedConnection[] = [];
  let open = 0;
  const answered = (connection: PacedConnection, request: DueRequest, status: number | undefined) => {
    if (status === undefined) errors++;
    else {
      if (status !== 200) errors++;
      latencies.push(performance.now() - request.due);
    }
    if (++settled === total) allSettled();
    const next = waiting.shift();
    if (next) connection.send(next);
    else idle.push(connection);
  };
  const dispatch = (request: DueRequest) => {
    let connection = idle.pop();
    if (!connection && open < load.connections) {
      open++;
      connection = new PacedConnection(Number(target.port || 80), target.hostname, answered);
    }
    if (connection) connection.send(request);
    else waiting.push(request);
  };

  const started = performance.now();
  const dueAt = (i: number) => started + (i * 1000) / load.rate;
  let next = 0;
  // Each tick sends every request due by now, then sleeps until the next one is due.
  const tick = () => {
    const now = performance.now();
    for (; next < total && dueAt(next) <= now; next++) {
      const body = load.bodies[next % load.bodies.length]!;
      dispatch({
        due: dueAt(next),
        text: `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      });
    }
    if (next < total) setTimeout(tick, Math.max(0, dueAt(next) - performance.now()));
  };
  if (total > 0) {
    tick();
    await done;
  }
  const elapsed = (performance.now() - started) / 1000;
  for (const connection of idle) connection.close();
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Number((latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0).toFixed(1));
  return { rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
}

/**
 * One keep-alive connection carrying one request at a time. A connection that breaks fails its
 * request (`status` undefined) and connects again for the next one.
 */
class PacedConnection {
  private socket: net.Socket | undefined;
  private current: DueRequest | undefined;

  constructor(
    private readonly port: number,
    private readonly host: string,
    private readonly answered: (
      connection: PacedConnection,
      request: DueRequest,
      status: number | undefined,
    ) => void,
  ) {}

  send(request: DueRequest): void {
    this.current = request;
    this.connected().write(request.text);
  }

  close(): void {
    this.socket?.destroy();
  }

  /** The open socket, or a new one with a parser of its own (nothing of an old one reaches it). */
  private connected(): net.Socket {
    if (this.socket) return this.socket;
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    const parser = new HTTPParser(HTTPParser.RESPONSE);
    let status = 0;
    let keepAlive = true;
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      status = info.statusCode;
      keepAlive = info.shouldKeepAlive;
    };
    parser[HTTPParser.kOnBody] = () => {};
    parser[HTTPParser.kOnMessageComplete] = () => {
      if (socket !== this.socket) return;
      if (!keepAlive) this.drop();
      this.finish(status);
    };
    socket.on('data', (chunk: Buffer) => {
      if (socket === this.socket && parser.execute(chunk) instanceof Error) this.fail(socket);
    });
    // An answer without a length ends with its connection.
    socket.on('end', () => {
      if (socket === this.socket) parser.finish();
    });
    socket.on('error', () => this.fail(socket));
    socket.on('close', () => this.fail(socket));
    this.socket = socket;
    return socket;
  }

  /** The socket broke or the server closed it: its request, if any, failed. */
  private fail(socket: net.Socket): void {
    if (socket !== this.socket) return;
    this.drop();
    this.finish(undefined);
  }

  private drop(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private finish(status: number | undefined): void {
    const request = this.current;
    if (!request) return;
    this.current = undefined;
    this.answered(this, request, status);
  }
}
