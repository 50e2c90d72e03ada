import net, { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pacedLoad } from '../../bench/support/paced-load.js';
import { ProviderServer } from '../support/provider-server.js';

/**
 * The paced load generator of bench:screening: its figures are what the latency targets are read
 * from, so it must send every request once, read every answer to its end, count failures, and
 * time each request from the moment it was due.
 */
let server: ProviderServer;
beforeEach(async () => {
  server = await ProviderServer.start();
});
afterEach(async () => server.close());

const PATH = '/v1/screen';

const load = (
  url: string,
  bodies: string[],
  more: { rate?: number; seconds?: number; connections?: number } = {},
) =>
  pacedLoad({
    url,
    path: PATH,
    headers: { authorization: 'Bearer test', 'content-type': 'application/json' },
    bodies,
    rate: more.rate ?? 200,
    durationSeconds: more.seconds ?? 0.5,
    connections: more.connections ?? 5,
  });

const connectionsUsed = () => new Set(server.requests.map((r) => r.remotePort)).size;

describe('paced load (bench/support/paced-load.ts)', () => {
  it('sends each due request once, with its body, headers and path, over at most `connections` sockets', async () => {
    server.serve(PATH, { body: { ok: true, padding: 'x'.repeat(20_000) } });
    const bodies = ['{"query":"Ali Hassan"}', '{"query":"Zoë Ångström"}', '{"query":"Иван Петров"}'];
    const figures = await load(server.baseUrl, bodies, { rate: 200, seconds: 0.5, connections: 5 });

    expect(figures.errors).toBe(0);
    expect(server.requests).toHaveLength(100);
    // In turn, over several connections: each body as often as its place in the cycle gives.
    expect(server.requests.map((r) => r.body).sort()).toEqual(
      Array.from({ length: 100 }, (_, i) => bodies[i % bodies.length]!).sort(),
    );
    for (const request of server.requests) {
      expect(request).toMatchObject({ method: 'POST', path: PATH });
      expect(request.headers).toMatchObject({
        authorization: 'Bearer test',
        'content-type': 'application/json',
      });
    }
    expect(connectionsUsed()).toBeLessThanOrEqual(5);
    expect(figures.p99).toBeGreaterThanOrEqual(figures.p50);
  });

  it('reads chunked answers to their end and keeps using the connection', async () => {
    // Three chunks of the server's 64 KB each.
    server.serve(PATH, { body: { padding: 'y'.repeat(150_000) }, chunked: true });
    const figures = await load(server.baseUrl, ['{}'], { rate: 100, seconds: 0.3, connections: 1 });

    expect(figures.errors).toBe(0);
    expect(server.requests).toHaveLength(30);
    expect(connectionsUsed()).toBe(1);
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
    server.serve(PATH, (request) => {
      // A route that throws makes the server drop the connection without an answer.
      if (request.body === '"broken"') throw new Error('connection dropped');
      if (request.body === '"refused"') return { status: 429, body: {} };
      if (request.body === '"closing"') return { body: {}, headers: { connection: 'close' } };
      return { body: {} };
    });
    const figures = await load(server.baseUrl, ['"ok"', '"refused"', '"broken"', '"closing"'], {
      rate: 100,
      seconds: 0.4,
      connections: 2,
    });

    // 40 requests: 10 of each kind; a closed connection's answer (200) still counts as answered.
    expect(server.requests).toHaveLength(40);
    expect(figures.errors).toBe(20);
  });

  it('times each request from when it was due, so waiting for a busy connection counts', async () => {
    // One connection and a server taking 50 ms per answer, asked 100 times a second: the requests
    // queue, and the last of ten was due 90 ms in but answered after about 500 ms.
    server.serve(PATH, { body: {}, delayMs: 50 });
    const figures = await load(server.baseUrl, ['{}'], { rate: 100, seconds: 0.1, connections: 1 });

    expect(figures.errors).toBe(0);
    expect(server.requests).toHaveLength(10);
    expect(figures.p99).toBeGreaterThanOrEqual(400);
  });
});
