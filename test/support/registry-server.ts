import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const FIXTURES_DIR = path.resolve(import.meta.dirname, '../fixtures/providers');

/** A fixture of test/fixtures/providers, as the provider sent it (bytes, not re-serialised). */
export function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES_DIR, name), 'utf8');
}

export interface RegistryRequest {
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

export interface RegistryAnswer {
  status?: number;
  /** A string or Buffer is sent as it is; anything else as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Wait this long before answering (the client may give up first). */
  delayMs?: number;
  /** Send the body in 64 kB chunks without a Content-Length, as a streaming server would. */
  chunked?: boolean;
}

export type RegistryRoute = (request: RegistryRequest) => RegistryAnswer | Promise<RegistryAnswer>;

/**
 * A corporate registry on 127.0.0.1 for tests: each path answers what the test set for it (a fixed
 * answer or a function of the request), anything else 404 in JSON:API form. Every request is
 * recorded with its headers, so tests can check what was sent (and what was not asked at all).
 */
export class RegistryServer {
  readonly requests: RegistryRequest[] = [];
  private routes = new Map<string, RegistryRoute>();
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<RegistryServer> {
    const server = http.createServer();
    const registry = new RegistryServer(server);
    server.on('request', (req, res) => {
      registry.handle(req, res).catch(() => res.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return registry;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The same server under another host name: a redirect there leaves the provider's host. */
  get otherHostUrl(): string {
    return `http://localhost:${(this.server.address() as AddressInfo).port}`;
  }

  route(path: string, answer: RegistryAnswer | RegistryRoute): void {
    this.routes.set(path, typeof answer === 'function' ? answer : () => answer);
  }

  /** Forgets the routes and the recorded requests. */
  reset(): void {
    this.routes = new Map();
    this.requests.length = 0;
  }

  requestsTo(path: string): RegistryRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    res.on('error', () => {});
    const url = new URL(req.url ?? '/', this.baseUrl);
    const request = { path: url.pathname, query: url.searchParams, headers: req.headers };
    this.requests.push(request);
    const route = this.routes.get(url.pathname);
    const answer: RegistryAnswer = route
      ? await route(request)
      : { status: 404, body: { errors: [{ status: '404', title: 'Not Found' }] } };
    if (answer.delayMs) await this.wait(answer.delayMs);
    if (res.destroyed) return;
    const body =
      typeof answer.body === 'string' || Buffer.isBuffer(answer.body)
        ? answer.body
        : JSON.stringify(answer.body ?? null);
    const bytes = Buffer.from(body);
    res.writeHead(answer.status ?? 200, {
      'content-type': 'application/json',
      ...(answer.chunked ? {} : { 'content-length': String(bytes.byteLength) }),
      ...answer.headers,
    });
    if (!answer.chunked) {
      res.end(bytes);
      return;
    }
    for (let at = 0; at < bytes.byteLength && !res.destroyed; at += 65_536) {
      if (!res.write(bytes.subarray(at, at + 65_536))) await drained(res);
    }
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
