import { describe, expect, it } from 'vitest';
import {
  checkEndpointUrl,
  EndpointGuard,
  type EndpointPolicy,
  EndpointRefusal,
  type ResolvedAddress,
  systemResolve,
} from '../../../src/webhooks/endpoint-guard.js';

const STRICT: EndpointPolicy = { allowPrivateNetworks: false, allowHttp: false };

/** A resolver answering from a table, as DNS would; unknown names are NXDOMAIN. */
function fakeDns(table: Record<string, string[]>) {
  return async (host: string): Promise<ResolvedAddress[]> => {
    const answers = table[host];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function refusal(promise: Promise<unknown>): Promise<EndpointRefusal> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof EndpointRefusal) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('webhook endpoint URL rules', () => {
  it.each([
    ['http://hooks.example.com/x', /must use https/],
    ['ftp://hooks.example.com/x', /must use https/],
    ['https://user:pass@hooks.example.com/x', /credentials/],
    ['https://user@hooks.example.com/x', /credentials/],
    ['not a url', /absolute URL/],
    [`https://hooks.example.com/${'a'.repeat(2_030)}`, /at most 2048/],
  ])('refuses %s', (url, message) => {
    expect(() => checkEndpointUrl(url, STRICT)).toThrow(message);
  });

  it('accepts plain http only with WEBHOOK_ALLOW_HTTP', () => {
    expect(checkEndpointUrl('http://hooks.example.com/x', { ...STRICT, allowHttp: true }).protocol).toBe(
      'http:',
    );
    expect(checkEndpointUrl('https://hooks.example.com:8443/x?y=1', STRICT).port).toBe('8443');
  });
});

describe('webhook SSRF guard', () => {
  const guard = new EndpointGuard(
    STRICT,
    fakeDns({
      'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      'v6only.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      'internal.example.com': ['10.1.2.3'],
      'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
      'metadata.example.com': ['169.254.169.254'],
      'mapped.example.com': ['::ffff:127.0.0.1'],
    }),
  );

  it.each([
    ['https://127.0.0.1/hook', /loopback/],
    ['https://10.0.0.1/hook', /private-network/],
    ['https://192.168.1.1/hook', /private-network/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback/],
    ['https://169.254.169.254/latest/meta-data', /cloud metadata/],
    ['https://100.64.0.1/hook', /carrier-grade NAT/],
    ['https://[fd00::1]/hook', /unique-local/],
    ['https://[fe80::1]/hook', /link-local/],
    ['https://0.0.0.0/hook', /unspecified/],
    ['https://224.0.0.1/hook', /multicast/],
    ['https://2130706433/hook', /loopback/],
    ['https://0x7f.1/hook', /loopback/],
    ['https://internal.example.com/hook', /private-network/],
    ['https://metadata.example.com/hook', /cloud metadata/],
    ['https://mapped.example.com/hook', /loopback/],
    ['https://mixed.example.com/hook', /loopback/],
  ])('refuses %s, without naming the address', async (url, reason) => {
    const error = await refusal(guard.check(new URL(url)));
    expect(error.message).toMatch(reason);
    expect(error.message).not.toMatch(/10\.1\.2\.3|169\.254|127\.0\.0\.1/);
    expect(error.permanent).toBe(true);
  });

  it('refuses a name that resolves to loopback through the system resolver (localhost)', async () => {
    const error = await refusal(
      new EndpointGuard(STRICT, systemResolve).check(new URL('https://localhost/hook')),
    );
    expect(error.message).toMatch(/loopback/);
  });

  it('returns the checked address to connect to, IPv4 first', async () => {
    expect(await guard.check(new URL('https://hooks.example.com/hook'))).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
    expect(await guard.check(new URL('https://v6only.example.com/hook'))).toEqual({
      address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c',
      family: 6,
    });
  });

  it('tells a name that does not exist (permanent) from a resolver failure (temporary)', async () => {
    expect((await refusal(guard.check(new URL('https://nowhere.example.com/')))).permanent).toBe(true);
    const broken = new EndpointGuard(STRICT, async () => {
      throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    });
    const error = await refusal(broken.check(new URL('https://hooks.example.com/')));
    expect(error.permanent).toBe(false);
    expect(error.message).toMatch(/EAI_AGAIN/);
  });

  it('stops waiting for a resolver that never answers when the attempt is aborted', async () => {
    const silent = new EndpointGuard(STRICT, () => new Promise(() => {}));
    const started = Date.now();
    await expect(
      silent.check(new URL('https://hooks.example.com/'), AbortSignal.timeout(100)),
    ).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('admits private networks with WEBHOOK_ALLOW_PRIVATE_NETWORKS, but never cloud metadata', async () => {
    const open = new EndpointGuard({ allowPrivateNetworks: true, allowHttp: true }, fakeDns({}));
    expect(await open.check(new URL('http://127.0.0.1:8080/'))).toEqual({ address: '127.0.0.1', family: 4 });
    expect(await open.check(new URL('http://[::1]:8080/'))).toEqual({ address: '::1', family: 6 });
    expect((await refusal(open.check(new URL('http://169.254.169.254/')))).message).toMatch(/metadata/);
  });
});
