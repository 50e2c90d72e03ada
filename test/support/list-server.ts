import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ServedFile {
  status?: number;
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** Answer 304 when the request's If-None-Match equals the body's ETag (default true). */
  conditional?: boolean;
}

export interface SeenRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  status: number;
}

/**
 * A list publisher on 127.0.0.1 for tests: each path answers what the test set for it, with a
 * strong ETag derived from the body (as the real publishers send), and 304 to a matching
 * If-None-Match. Every request is recorded.
 */
export class ListServer {
  readonly requests: SeenRequest[] = [];
  private readonly files = new Map<string, ServedFile>();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ListServer> {
    const server = http.createServer();
    const listServer = new ListServer(server);
    server.on('request', (req, res) => listServer.answer(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return listServer;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  serve(path: string, file: ServedFile): void {
    this.files.set(path, file);
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0]!;
    const file = this.files.get(path);
    const record = (status: number) => this.requests.push({ path, headers: req.headers, status });
    if (!file) {
      record(404);
      res.writeHead(404).end('not found');
      return;
    }
    const body = file.body === undefined ? Buffer.alloc(0) : Buffer.from(file.body);
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if ((file.conditional ?? true) && req.headers['if-none-match'] === etag) {
      record(304);
      res.writeHead(304, { etag }).end();
      return;
    }
    const status = file.status ?? 200;
    record(status);
    res.writeHead(status, {
      etag,
      'content-type': 'application/octet-stream',
      'content-length': String(body.byteLength),
      ...file.headers,
    });
    res.end(body);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
