import dns from 'node:dns';
import net from 'node:net';
import {
  type AddressClass,
  classifyAddress,
  describeAddressClass,
  isAllowedClass,
} from './address-policy.js';
import { WEBHOOK_URL_MAX_CHARS } from './webhook-policy.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to; the process resolver (hosts file, DNS) by default. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface EndpointPolicy {
  allowPrivateNetworks: boolean;
  allowHttp: boolean;
}

/**
 * Why an endpoint is refused. `permanent` failures are the URL's own (a customer must change it);
 * the others (a resolver that did not answer) may pass on another try.
 */
export class EndpointRefusal extends Error {
  constructor(
    message: string,
    readonly permanent = true,
  ) {
    super(message);
    this.name = 'EndpointRefusal';
  }
}

/** Resolver answers meaning "this name does not exist", as opposed to "the resolver failed". */
const NAME_NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/** Checks the URL itself: scheme, length, no credentials. Returns it parsed. */
export function checkEndpointUrl(raw: string, policy: EndpointPolicy): URL {
  if (raw.length > WEBHOOK_URL_MAX_CHARS)
    throw new EndpointRefusal(`must be at most ${WEBHOOK_URL_MAX_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointRefusal('must be an absolute URL');
  }
  const schemes = policy.allowHttp ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) {
    throw new EndpointRefusal(policy.allowHttp ? 'must use https or http' : 'must use https');
  }
  if (url.username !== '' || url.password !== '')
    throw new EndpointRefusal('must not contain credentials (user:password@)');
  if (url.hostname === '') throw new EndpointRefusal('must name a host');
  return url;
}

/** The host of a parsed URL as a resolver or a socket takes it (IPv6 literals without brackets). */
export function bareHostname(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The SSRF guard: resolves an endpoint's host and refuses it unless every address it resolves to
 * is allowed. The caller connects to the address returned, never resolving again, so a DNS answer
 * that changes between the check and the connection (rebinding) cannot redirect the request.
 */
export class EndpointGuard {
  constructor(
    readonly policy: EndpointPolicy,
    private readonly resolve: Resolve = systemResolve,
  ) {}

  /** The address to connect to for this URL; throws `EndpointRefusal`. Aborts with `signal`. */
  async check(url: URL, signal?: AbortSignal): Promise<ResolvedAddress> {
    const host = bareHostname(url);
    if (net.isIP(host)) {
      this.assertAllowed(classifyAddress(host));
      return { address: host, family: net.isIPv6(host) ? 6 : 4 };
    }
    const addresses = await this.lookup(host, signal);
    if (addresses.length === 0) throw new EndpointRefusal(`the host ${host} does not resolve`);
    // One refused address refuses the host: a name that mixes public and internal answers is a trap.
    for (const a of addresses) this.assertAllowed(classifyAddress(a.address));
    // Containers often lack IPv6 routes; IPv4 first when the name has both.
    return addresses.find((a) => a.family === 4) ?? addresses[0]!;
  }

  private assertAllowed(kind: AddressClass | undefined): void {
    if (kind === undefined) throw new EndpointRefusal('resolves to something that is not an IP address');
    if (!isAllowedClass(kind, this.policy.allowPrivateNetworks)) {
      throw new EndpointRefusal(`resolves to ${describeAddressClass(kind)}, which webhooks may not reach`);
    }
  }

  private async lookup(host: string, signal: AbortSignal | undefined): Promise<ResolvedAddress[]> {
    // The system resolver cannot be cancelled; the attempt stops waiting for it instead.
    const aborted = new Promise<never>((_, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    try {
      return await Promise.race([this.resolve(host), aborted]);
    } catch (error) {
      if (signal?.aborted) throw error;
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && NAME_NOT_FOUND_CODES.has(code))
        throw new EndpointRefusal(`the host ${host} does not resolve`);
      throw new EndpointRefusal(
        `the host ${host} could not be resolved (${typeof code === 'string' ? code : 'resolver error'})`,
        false,
      );
    }
  }
}
