import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
}

/** A fixed reply, or one computed from the request and how many requests the path had before it. */
export type ProviderRoute =
  | ProviderReply
  | ((request: SeenProviderRequest, previous: number) => ProviderReply | Promise<ProviderReply>);

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
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  serve(path: string, route: ProviderRoute): void {
    this.routes.set(path, route);
  }

  /** Forgets the routes and the requests seen, for the next test on the same server. */
  reset(): void {
    this.routes.clear();
    this.requests.length = 0;
  }

  requestsTo(path: string): SeenProviderRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private async answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = new URL(req.url ?? '/', 'http://provider.test');
    const seen: SeenProviderRequest = {
      method: req.method ?? 'GET',
      path: target.pathname,
      query: target.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
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
    this.send(res, reply);
  }

  private send(res: http.ServerResponse, reply: ProviderReply): void {
    const raw = reply.body;
    const json = raw !== undefined && typeof raw !== 'string' && !Buffer.isBuffer(raw);
    const body =
      raw === undefined ? Buffer.alloc(0) : Buffer.from(json ? JSON.stringify(raw) : (raw as string));
    const headers: Record<string, string> = {
      'content-type': json ? 'application/json' : 'text/plain; charset=utf-8',
      ...(reply.chunked ? {} : { 'content-length': String(body.byteLength) }),
      ...reply.headers,
    };
    res.writeHead(reply.status ?? 200, headers);
    if (!reply.chunked) {
      res.end(body);
      return;
    }
    const size = 64 * 1024;
    for (let at = 0; at < body.byteLength; at += size) res.write(body.subarray(at, at + size));
    res.end();
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
