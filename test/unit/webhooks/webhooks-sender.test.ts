import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  EndpointGuard,
  type EndpointPolicy,
  type ResolvedAddress,
} from '../../../src/webhooks/endpoint-guard.js';
import { RESPONSE_EXCERPT_MAX_CHARS } from '../../../src/webhooks/webhook-policy.js';
import { WebhookSender } from '../../../src/webhooks/webhook-sender.js';
import { type Behaviour, WebhookReceiver } from '../../support/webhooks-receiver.js';

const LOCAL: EndpointPolicy = { allowPrivateNetworks: true, allowHttp: true };
const BODY = Buffer.from('{"event":"screening.complete"}');
const HEADERS = { 'content-type': 'application/json', 'webhook-id': 'd1' };
const never = new AbortController().signal;

describe('webhook sender', () => {
  const receivers: WebhookReceiver[] = [];
  const servers: http.Server[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });
  const receiver = async (behaviour: Behaviour) => {
    const r = await WebhookReceiver.start(behaviour);
    receivers.push(r);
    return r;
  };

  it('posts the exact body and headers and counts a 2xx as success', async () => {
    const target = await receiver({ status: 204 });
    const result = await new WebhookSender(new EndpointGuard(LOCAL)).send(target.url, BODY, HEADERS, never);
    expect(result).toMatchObject({ ok: true, statusCode: 204, error: null, abandoned: false });
    expect(target.received[0]!.body.equals(BODY)).toBe(true);
    expect(target.received[0]!.headers['webhook-id']).toBe('d1');
    expect(target.received[0]!.headers['content-length']).toBe(String(BODY.length));
  });

  it('connects to the address it checked, never resolving the name again', async () => {
    const target = await receiver({ status: 200 });
    const port = new URL(target.url).port;
    let lookups = 0;
    const resolve = async (): Promise<ResolvedAddress[]> => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    // receiver.invalid cannot resolve anywhere: only the checked address can have been used.
    const sender = new WebhookSender(new EndpointGuard(LOCAL, resolve));
    const result = await sender.send(`http://receiver.invalid:${port}/hooks`, BODY, HEADERS, never);
    expect(result.ok).toBe(true);
    expect(lookups).toBe(1);
    expect(target.received[0]!.headers.host).toBe(`receiver.invalid:${port}`);
  });

  it('checks the address again at every connection: a name rebound to loopback is refused', async () => {
    const target = await receiver({ status: 200 });
    const port = new URL(target.url).port;
    const answers = ['93.184.215.14', '127.0.0.1'];
    const guard = new EndpointGuard({ allowPrivateNetworks: false, allowHttp: true }, async () => [
      { address: answers.shift()!, family: 4 },
    ]);
    const url = `http://rebinding.invalid:${port}/hooks`;
    await guard.check(new URL(url)); // at registration: a public address
    const result = await new WebhookSender(guard).send(url, BODY, HEADERS, never);
    expect(result).toMatchObject({ ok: false, statusCode: null });
    expect(result.error).toMatch(/loopback/);
    expect(target.received).toHaveLength(0);
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    const elsewhere = await receiver({ status: 200 });
    const redirecting = await receiver({ status: 302, headers: { location: elsewhere.url } });
    const result = await new WebhookSender(new EndpointGuard(LOCAL)).send(
      redirecting.url,
      BODY,
      HEADERS,
      never,
    );
    expect(result).toMatchObject({ ok: false, statusCode: 302, error: 'redirect (302) not followed' });
    expect(redirecting.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('reports a non-2xx status with a short excerpt of the answer on one printable line', async () => {
    const failing = await receiver({
      status: 503,
      body: `database down\u0000\n\u2028\u202e${'x'.repeat(10_000)}`,
    });
    const result = await new WebhookSender(new EndpointGuard(LOCAL)).send(failing.url, BODY, HEADERS, never);
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBe(503);
    expect(result.error).toMatch(/^HTTP 503: database down x+…$/);
    expect(Array.from(result.error!.slice('HTTP 503: '.length))).toHaveLength(RESPONSE_EXCERPT_MAX_CHARS + 1);
  });

  it('cuts an excerpt on whole characters, and marks only a cut one', async () => {
    const emoji = await receiver({ status: 500, body: '😀'.repeat(RESPONSE_EXCERPT_MAX_CHARS + 1) });
    const short = await receiver({ status: 500, body: 'invalid signature\n' });
    const sender = new WebhookSender(new EndpointGuard(LOCAL));
    const cut = await sender.send(emoji.url, BODY, HEADERS, never);
    expect(cut.error).toBe(`HTTP 500: ${'😀'.repeat(RESPONSE_EXCERPT_MAX_CHARS)}…`);
    expect((await sender.send(short.url, BODY, HEADERS, never)).error).toBe('HTTP 500: invalid signature');
  });

  it('reads at most the response cap, then drops the connection (an endless answer does not hold it)', async () => {
    let written = 0;
    let receiverSawClose = false;
    const server = http.createServer((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 120);
      const timer = setInterval(() => {
        response.write(chunk);
        written += chunk.length;
      }, 2);
      response.on('close', () => {
        clearInterval(timer);
        receiverSawClose = true;
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const sender = new WebhookSender(new EndpointGuard(LOCAL), {
      timeoutMs: 20_000,
      maxResponseBytes: 64 * 1024,
    });
    const result = await sender.send(url, BODY, HEADERS, never);
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    await expect.poll(() => receiverSawClose).toBe(true);
    // Without the cap the answer would be read until the 20 s timeout: megabytes by then.
    expect(written).toBeLessThan(1024 * 1024);
    expect(result.durationMs).toBeLessThan(20_000);
  });

  it('cuts an attempt whose receiver never answers at the timeout', async () => {
    const hanging = await receiver('hang');
    const sender = new WebhookSender(new EndpointGuard(LOCAL), { timeoutMs: 300, maxResponseBytes: 1024 });
    const result = await sender.send(hanging.url, BODY, HEADERS, never);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'no answer within 0.3 s' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('reports a refused connection without addresses', async () => {
    const closed = await receiver({ status: 200 });
    await closed.close();
    receivers.splice(receivers.indexOf(closed), 1);
    const result = await new WebhookSender(new EndpointGuard(LOCAL)).send(closed.url, BODY, HEADERS, never);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
  });

  it('abandons an attempt when the process stops, without counting it as a failure', async () => {
    const hanging = await receiver('hang');
    const stop = new AbortController();
    const pending = new WebhookSender(new EndpointGuard(LOCAL)).send(hanging.url, BODY, HEADERS, stop.signal);
    await hanging.waitFor(1);
    stop.abort();
    expect(await pending).toMatchObject({ ok: false, abandoned: true });
  });

  it('refuses a URL the policy forbids without connecting', async () => {
    const target = await receiver({ status: 200 });
    const strict = new WebhookSender(new EndpointGuard({ allowPrivateNetworks: false, allowHttp: false }));
    const result = await strict.send(target.url, BODY, HEADERS, never);
    expect(result).toMatchObject({ ok: false, error: 'must use https' });
    const https = await strict.send(target.url.replace('http:', 'https:'), BODY, HEADERS, never);
    expect(https.error).toMatch(/loopback/);
    expect(target.received).toHaveLength(0);
  });

  /** A receiver that counts its connections and answers each request as `answer` says. */
  async function countingServer(
    answer: (request: http.IncomingMessage, response: http.ServerResponse, nth: number) => void,
  ) {
    let connections = 0;
    let requests = 0;
    const server = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => answer(request, response, ++requests));
    });
    server.on('connection', () => connections++);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    return { url, connections: () => connections, requests: () => requests };
  }

  it('keeps the connection to a receiver for its next deliveries', async () => {
    const server = await countingServer((_request, response) => response.writeHead(204).end());
    const sender = new WebhookSender(new EndpointGuard(LOCAL));
    try {
      for (let i = 0; i < 3; i++) expect((await sender.send(server.url, BODY, HEADERS, never)).ok).toBe(true);
      expect(server.requests()).toBe(3);
      expect(server.connections()).toBe(1);
    } finally {
      sender.close();
    }
  });

  it('sends again on a new connection when the receiver drops a kept one as it is reused', async () => {
    // The second request on the first connection is dropped unanswered, as by a receiver whose
    // idle timeout ran out just then; the attempt is not a failure for that.
    const server = await countingServer((request, response, nth) => {
      if (nth === 2) request.socket.destroy();
      else response.writeHead(204).end();
    });
    const sender = new WebhookSender(new EndpointGuard(LOCAL));
    try {
      expect((await sender.send(server.url, BODY, HEADERS, never)).ok).toBe(true);
      expect(await sender.send(server.url, BODY, HEADERS, never)).toMatchObject({
        ok: true,
        statusCode: 204,
      });
      expect(server.requests()).toBe(3);
      expect(server.connections()).toBe(2);
    } finally {
      sender.close();
    }
  });
});
