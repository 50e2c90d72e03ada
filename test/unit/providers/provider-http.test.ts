import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/sources/providers/provider-error.js';
import { ProviderHttp } from '../../../src/sources/providers/provider-http.js';
import { PROVIDER_MAX_RESPONSE_BYTES } from '../../../src/sources/providers/provider-policy.js';
import { ProviderServer } from '../../support/provider-server.js';

let server: ProviderServer;
let other: ProviderServer;

beforeEach(async () => {
  server = await ProviderServer.start();
  other = await ProviderServer.start();
});
afterEach(async () => {
  await server.close();
  await other.close();
});

function client(timeoutMs = 1_000, maxResponseBytes?: number): ProviderHttp {
  return new ProviderHttp({
    provider: 'test_provider',
    timeoutMs,
    concurrency: 4,
    random: () => 0,
    ...(maxResponseBytes ? { maxResponseBytes } : {}),
  });
}

const never = () => new AbortController().signal;

/** The error a call fails with, which must be a ProviderError (never a raw fetch error). */
async function failure(call: Promise<unknown>): Promise<ProviderError> {
  await expect(call).rejects.toBeInstanceOf(ProviderError);
  return call.catch((error: ProviderError) => error) as Promise<ProviderError>;
}

describe('provider HTTP: time budget and the one retry', () => {
  it('retries a timed-out first attempt once, and still answers within the budget', async () => {
    server.serve('/a', (_req, previous) =>
      previous === 0 ? { delayMs: 5_000, body: {} } : { body: { ok: 1 } },
    );
    const started = performance.now();
    const answer = await client(1_000).json({ url: new URL(server.url('/a')) }, never());
    expect(answer).toEqual({ ok: 1 });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(server.requestsTo('/a')).toHaveLength(2);
  });

  it('times out even when a garbage collection runs while it waits', async () => {
    // Node 20 drops an AbortSignal.timeout held only by AbortSignal.any at the next collection.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    server.serve('/a', { delayMs: 5_000, body: {} });
    const started = performance.now();
    const call = failure(client(600).json({ url: new URL(server.url('/a')) }, never()));
    setTimeout(gc, 50);
    setTimeout(gc, 400);
    expect((await call).failure).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(600 + 300);
  });

  it('gives up at the budget when both attempts are too slow, as a timeout', async () => {
    server.serve('/a', { delayMs: 5_000, body: {} });
    const started = performance.now();
    const error = await failure(client(600).json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(600 + 300);
  });

  it('starts no retry that could not finish within the budget', async () => {
    server.serve('/a', { delayMs: 5_000, body: {} });
    const error = await failure(client(300).json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('timeout');
    expect(server.requestsTo('/a')).toHaveLength(1);
  });

  it('retries a 5xx once and takes the second answer', async () => {
    server.serve('/a', (_req, previous) => (previous === 0 ? { status: 503 } : { body: { ok: 2 } }));
    expect(await client().json({ url: new URL(server.url('/a')) }, never())).toEqual({ ok: 2 });
    expect(server.requestsTo('/a')).toHaveLength(2);
  });

  it('fails after the retry of a 5xx fails too, with no third attempt', async () => {
    server.serve('/a', { status: 502 });
    const error = await failure(client().json({ url: new URL(server.url('/a')) }, never()));
    expect(error).toMatchObject({ failure: 'http_status', status: 502 });
    expect(server.requestsTo('/a')).toHaveLength(2);
  });

  it.each([400, 401, 404, 429])('does not retry a %i', async (status) => {
    server.serve('/a', { status });
    const error = await failure(client().json({ url: new URL(server.url('/a')) }, never()));
    expect(error).toMatchObject({ failure: 'http_status', status });
    expect(server.requestsTo('/a')).toHaveLength(1);
  });

  it('stops at once when the caller gives up, without a retry', async () => {
    server.serve('/a', { delayMs: 5_000, body: {} });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const started = performance.now();
    const error = await failure(client(3_000).json({ url: new URL(server.url('/a')) }, caller.signal));
    expect(error.failure).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(server.requestsTo('/a')).toHaveLength(1);
  });

  it('reports an unreachable provider as a network failure', async () => {
    const port = new URL(other.baseUrl).port;
    await other.close();
    const error = await failure(client().json({ url: new URL(`http://127.0.0.1:${port}/a`) }, never()));
    expect(error.failure).toBe('network');
    other = await ProviderServer.start();
  });
});

describe('provider HTTP: answers are untrusted input', () => {
  it('refuses an answer that is not JSON, without retrying it', async () => {
    server.serve('/a', { body: '{"results": [', headers: { 'content-type': 'application/json' } });
    const error = await failure(client().json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('malformed');
    expect(server.requestsTo('/a')).toHaveLength(1);
  });

  it('refuses a body over 2 MB whose size was not announced, reading no further', async () => {
    server.serve('/a', { body: `"${'x'.repeat(PROVIDER_MAX_RESPONSE_BYTES + 10)}"`, chunked: true });
    const error = await failure(client(5_000).json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('too_large');
  });

  it('refuses an announced Content-Length over the cap before reading the body', async () => {
    // The body announced is never sent: only the header can have decided.
    server.serve('/a', {
      body: '{}',
      headers: { 'content-length': String(PROVIDER_MAX_RESPONSE_BYTES + 1) },
    });
    const started = performance.now();
    const error = await failure(client(5_000).json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('too_large');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('accepts an answer just under the cap', async () => {
    server.serve('/a', { body: { text: 'x'.repeat(1_000) } });
    expect(await client(1_000, 2_000).json({ url: new URL(server.url('/a')) }, never())).toEqual({
      text: 'x'.repeat(1_000),
    });
  });

  it('never names the address, its key or a header in an error', async () => {
    server.serve('/a', { status: 500 });
    const url = new URL(server.url('/a?api_key=secret-in-query'));
    const error = await failure(
      client().json({ url, headers: { authorization: 'ApiKey secret-in-header' } }, never()),
    );
    expect(error.message).toMatch(/^test_provider: /);
    expect(error.message).not.toMatch(/secret|127\.0\.0\.1|api_key/);
  });
});

describe('provider HTTP: redirects', () => {
  it('follows a redirect within the same host', async () => {
    server.serve('/old', { status: 302, headers: { location: '/new' } });
    server.serve('/new', { body: { moved: true } });
    expect(await client().json({ url: new URL(server.url('/old')) }, never())).toEqual({ moved: true });
  });

  it('refuses a redirect to another host and never reaches it', async () => {
    other.serve('/elsewhere', { body: { leaked: true } });
    server.serve('/a', { status: 307, headers: { location: other.url('/elsewhere') } });
    const error = await failure(client().json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('redirect');
    expect(other.requests).toHaveLength(0);
  });

  it('treats the same port under another name as another host', async () => {
    server.serve('/a', {
      status: 302,
      headers: { location: server.url('/b').replace('127.0.0.1', 'localhost') },
    });
    server.serve('/b', { body: {} });
    const error = await failure(client().json({ url: new URL(server.url('/a')) }, never()));
    expect(error.failure).toBe('redirect');
    expect(server.requestsTo('/b')).toHaveLength(0);
  });

  it('does not follow a redirect of a POST, which would resend or drop its body', async () => {
    server.serve('/a', { status: 307, headers: { location: '/b' } });
    server.serve('/b', { body: {} });
    const error = await failure(
      client().json({ url: new URL(server.url('/a')), method: 'POST', body: { q: 1 } }, never()),
    );
    expect(error.failure).toBe('redirect');
    expect(server.requestsTo('/b')).toHaveLength(0);
  });

  it('stops after a few same-host hops (a redirect loop)', async () => {
    server.serve('/loop', { status: 302, headers: { location: '/loop' } });
    const error = await failure(client().json({ url: new URL(server.url('/loop')) }, never()));
    expect(error.failure).toBe('redirect');
    expect(server.requestsTo('/loop').length).toBeLessThanOrEqual(4);
  });
});
