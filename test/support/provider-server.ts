import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const FIXTURES_DIR = path.resolve(import.meta.dirname, '../fixtures/providers');

/**
 * A file of test/fixtures/providers as the provider sent it: text, not re-serialised, so a test
 * serves the very bytes of the documented answer.
 */
export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8');
}

/** What the stand-in provider answers to one request. */
export interface ProviderReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON. */
  body?: unknown;
  /** Wait this long before answering (a slow provider); the wait ends when the server closes. */
  delayMs?: number;
  /** Send the body in chunks without Content-Length (a size the client learns only by reading). */
  chunked?: boolean;
}

export interface SeenProviderRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The client's port: requests with the same one came on the same connection. */
  remotePort: number | undefined;
}

/** A fixed reply, or one computed from the request and how many requests the path had before it. */
export type ProviderRoute =
  | ProviderReply
  | ((request: SeenProviderRequest, previous: number) => ProviderReply | Promise<ProviderReply>);

const CHUNK_BYTES = 64 * 1024;

/**
 * A remote provider on 127.0.0.1 for tests (the tests never reach the internet): each path answers
 * what the test set for it, every request is recorded with its headers and body, and an unknown
 * path is a 404.
 */
export class ProviderServer {
  readonly requests: SeenProviderRequest[] = [];
  private readonly routes = new Map<string, ProviderRoute>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ProviderServer> {
    const server = http.createServer();
    const provider = new ProviderServer(server);
    server.on('request', (req, res) => {
      provider.answer(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * This server under another host name: the client must treat a redirect there as leaving the
   * provider's host, and a request that arrives anyway is recorded (`requestsTo`).
   */
  get otherHostUrl(): string {
    return `http://localhost:${this.port}`;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  serve(path: string, route: ProviderRoute): void {
    this.routes.set(path, route);
  }

  /** Makes the path give the answer it gives now, `ms` later: the same provider, slow. */
  delay(path: string, ms: number): void {
    const route = this.routes.get(path);
    if (!route) throw new Error(`${path} has no answer to delay`);
    this.serve(path, async (request, previous) => ({
      ...(typeof route === 'function' ? await route(request, previous) : route),
      delayMs: ms,
    }));
  }

  /** Forgets the routes and the requests seen, for the next test on the same server. */
  reset(): void {
    this.routes.clear();
    this.requests.length = 0;
  }

  requestsTo(path: string): SeenProviderRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // A client that gives up mid-answer resets the socket; that is the test's point, not an error.
    res.on('error', () => {});
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = new URL(req.url ?? '/', 'http://provider.test');
    const seen: SeenProviderRequest = {
      method: req.method ?? 'GET',
      path: target.pathname,
      query: target.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      remotePort: req.socket.remotePort,
    };
    const previous = this.requestsTo(seen.path).length;
    this.requests.push(seen);
    const route = this.routes.get(seen.path);
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const reply = typeof route === 'function' ? await route(seen, previous) : route;
    if (reply.delayMs) await this.wait(reply.delayMs);
    if (res.destroyed) return;
    await send(res, reply);
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function send(res: http.ServerResponse, reply: ProviderReply): Promise<void> {
  const raw = reply.body;
  const text = typeof raw === 'string' || Buffer.isBuffer(raw);
  const body =
    raw === undefined ? Buffer.alloc(0) : Buffer.from(text ? (raw as string) : JSON.stringify(raw));
  const headers: Record<string, string> = {
    'content-type': contentType(raw, body),
    ...(reply.chunked ? {} : { 'content-length': String(body.byteLength) }),
    ...reply.headers,
  };
  res.writeHead(reply.status ?? 200, headers);
  if (!reply.chunked) {
    res.end(body);
    return;
  }
  // Written as a streaming server would: a chunk at a time, waiting while the client is behind.
  for (let at = 0; at < body.byteLength && !res.destroyed; at += CHUNK_BYTES) {
    if (!res.write(body.subarray(at, at + CHUNK_BYTES))) await drained(res);
  }
  res.end();
}

/**
 * JSON fixtures are served as text (their own bytes), yet the provider labels them JSON; a text
 * that does not open like JSON (GDELT's plain-text refusals) is labelled as plain text.
 */
function contentType(raw: unknown, body: Buffer): string {
  if (raw === undefined) return 'text/plain; charset=utf-8';
  const json =
    !(typeof raw === 'string' || Buffer.isBuffer(raw)) || /^\s*[[{]/.test(body.toString('utf8', 0, 64));
  return json ? 'application/json' : 'text/plain; charset=utf-8';
}

/** Resolves when the response can take more data, or is gone (the client stopped reading). */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
