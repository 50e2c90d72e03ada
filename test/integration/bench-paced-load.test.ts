import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pacedLoad } from '../../bench/support/paced-load.js';

/**
 * The paced load generator of bench:screening: its figures are what the latency targets are read
 * from, so it must send every request once, read every answer to its end, count failures, and
 * time each request from the moment it was due.
 */
type Handler = (body: string, request: http.IncomingMessage, response: http.ServerResponse) => void;

const servers: http.Server[] = [];

async function serve(handler: Handler): Promise<{ url: string; sockets: Set<unknown>; bodies: string[] }> {
  const sockets = new Set<unknown>();
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    sockets.add(request.socket);
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      bodies.push(body);
      handler(body, request, response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sockets, bodies };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const load = (
  url: string,
  bodies: string[],
  more: { rate?: number; seconds?: number; connections?: number } = {},
) =>
  pacedLoad({
    url,
    path: '/v1/screen',
    headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
    bodies,
    rate: more.rate ?? 200,
    durationSeconds: more.seconds ?? 0.5,
    connections: more.connections ?? 5,
  });

describe('paced load (bench/support/paced-load.ts)', () => {
  it('sends each due request once, with its body, headers and path, over at most `connections` sockets', async () => {
    const seen: { path?: string; auth?: string; type?: string }[] = [];
    const server = await serve((_body, request, response) => {
      seen.push({
        path: request.url,
        auth: request.headers.authorization,
        type: request.headers['content-type'],
      });
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ ok: true, padding: 'x'.repeat(20_000) }));
    });
    const bodies = ['{"query":"Ali Hassan"}', '{"query":"Zoë Ångström"}', '{"query":"Иван Петров"}'];
    const figures = await load(server.url, bodies, { rate: 200, seconds: 0.5, connections: 5 });

    expect(figures.errors).toBe(0);
    expect(server.bodies).toHaveLength(100);
    // In turn, over several connections: each body as often as its place in the cycle gives.
    expect([...server.bodies].sort()).toEqual(
      Array.from({ length: 100 }, (_, i) => bodies[i % bodies.length]!).sort(),
    );
    expect(seen.every((s) => s.path === '/v1/screen' && s.auth === 'Bearer test')).toBe(true);
    expect(seen.every((s) => s.type === 'application/json')).toBe(true);
    expect(server.sockets.size).toBeGreaterThan(0);
    expect(server.sockets.size).toBeLessThanOrEqual(5);
    expect(figures.rps).toBeGreaterThan(0);
    expect(figures.p99).toBeGreaterThanOrEqual(figures.p50);
  });

  it('reads chunked answers to their end and keeps using the connection', async () => {
    const server = await serve((_body, _request, response) => {
      response.write('{"part":1,');
      setImmediate(() => response.end('"part2":2}'));
    });
    const figures = await load(server.url, ['{}'], { rate: 100, seconds: 0.3, connections: 1 });

    expect(figures.errors).toBe(0);
    expect(server.bodies).toHaveLength(30);
    expect(server.sockets.size).toBe(1);
  });

  it('reads an answer without a length to the end of its connection, and connects again', async () => {
    let connections = 0;
    const raw = net.createServer((socket) => {
      connections++;
      socket.once('data', () =>
        socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n{"ok":1}'),
      );
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`;
      const figures = await load(url, ['{}'], { rate: 100, seconds: 0.2, connections: 1 });

      expect(figures.errors).toBe(0);
      expect(connections).toBe(20);
    } finally {
      await new Promise((resolve) => raw.close(resolve));
    }
  });

  it('counts answers other than 200 and broken connections as errors, and goes on', async () => {
    const server = await serve((body, request, response) => {
      if (body === '"refused"') {
        response.statusCode = 429;
        response.end('{}');
      } else if (body === '"broken"') request.socket.destroy();
      else if (body === '"closing"') {
        response.setHeader('connection', 'close');
        response.end('{}');
      } else response.end('{}');
    });
    const figures = await load(server.url, ['"ok"', '"refused"', '"broken"', '"closing"'], {
      rate: 100,
      seconds: 0.4,
      connections: 2,
    });

    // 40 requests: 10 of each kind; a closed connection's answer (200) still counts as answered.
    expect(server.bodies).toHaveLength(40);
    expect(figures.errors).toBe(20);
  });

  it('times each request from when it was due, so waiting for a busy connection counts', async () => {
    // One connection and a server taking 50 ms per answer, asked 100 times a second: the requests
    // queue, and the last of ten was due 90 ms in but answered after about 500 ms.
    const server = await serve((_body, _request, response) => {
      setTimeout(() => response.end('{}'), 50);
    });
    const figures = await load(server.url, ['{}'], { rate: 100, seconds: 0.1, connections: 1 });

    expect(figures.errors).toBe(0);
    expect(server.bodies).toHaveLength(10);
    expect(figures.p99).toBeGreaterThanOrEqual(400);
  });
});
