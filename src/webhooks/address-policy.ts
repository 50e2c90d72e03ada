import net from 'node:net';

/**
 * Which IP addresses a webhook may be delivered to (the SSRF guard's pure part). Addresses are
 * classified, not pattern-matched as text: IPv6 is parsed to its 128 bits, so every spelling of an
 * address (`::ffff:127.0.0.1`, `::ffff:7f00:1`, `0:0:0:0:0:ffff:7f00:0001`) lands in the same class,
 * and IPv6 forms that carry an IPv4 address (mapped, NAT64, 6to4) are judged by that address.
 */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cloud-metadata'
  | 'shared'
  | 'unique-local'
  | 'multicast'
  | 'reserved';

/**
 * Classes a receiver inside the operator's own network has; `WEBHOOK_ALLOW_PRIVATE_NETWORKS` admits
 * them. Link-local is not one: it is where the cloud metadata services live (169.254.169.254,
 * ECS's 169.254.170.2, EKS's 169.254.170.23, Tencent's 169.254.0.23, ...) and no receiver is
 * configured on an address the network hands out by itself.
 */
const PRIVATE_NETWORK_CLASSES: ReadonlySet<AddressClass> = new Set([
  'loopback',
  'private',
  'shared',
  'unique-local',
]);

const CLASS_WORDS: Record<AddressClass, string> = {
  public: 'a public address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private-network address',
  'link-local': 'a link-local address',
  'cloud-metadata': 'a cloud metadata address',
  shared: 'a carrier-grade NAT (shared) address',
  'unique-local': 'an IPv6 unique-local address',
  multicast: 'a multicast address',
  reserved: 'a reserved or documentation address',
};

/** Words for a refusal message; the address itself is never shown (it may be an internal one). */
export function describeAddressClass(kind: AddressClass): string {
  return CLASS_WORDS[kind];
}

/**
 * Whether an address of this class may receive webhooks. Metadata services, link-local,
 * unspecified, multicast and reserved addresses are never a receiver, whatever the setting.
 */
export function isAllowedClass(kind: AddressClass, allowPrivateNetworks: boolean): boolean {
  return kind === 'public' || (allowPrivateNetworks && PRIVATE_NETWORK_CLASSES.has(kind));
}

type V4Range = [base: number, prefix: number, kind: AddressClass];

/**
 * IANA's special-purpose IPv4 registry, most specific first, after the cloud metadata services
 * known to sit elsewhere than link-local (named, so that a refusal says what it protects).
 */
const IPV4_RANGES: V4Range[] = [
  [ipv4('169.254.169.254'), 32, 'cloud-metadata'], // AWS, GCP, Azure, OpenStack, DigitalOcean...
  [ipv4('169.254.170.2'), 32, 'cloud-metadata'], // AWS ECS task metadata and credentials
  [ipv4('169.254.170.23'), 32, 'cloud-metadata'], // AWS EKS Pod Identity
  [ipv4('169.254.0.23'), 32, 'cloud-metadata'], // Tencent Cloud
  [ipv4('100.100.100.200'), 32, 'cloud-metadata'], // Alibaba Cloud (inside carrier-grade NAT)
  [ipv4('168.63.129.16'), 32, 'cloud-metadata'], // Azure WireServer (a public address)
  [ipv4('192.0.0.192'), 32, 'cloud-metadata'], // Oracle Cloud (classic)
  [ipv4('0.0.0.0'), 32, 'unspecified'],
  [ipv4('0.0.0.0'), 8, 'reserved'],
  [ipv4('10.0.0.0'), 8, 'private'],
  [ipv4('100.64.0.0'), 10, 'shared'],
  [ipv4('127.0.0.0'), 8, 'loopback'],
  [ipv4('169.254.0.0'), 16, 'link-local'],
  [ipv4('172.16.0.0'), 12, 'private'],
  [ipv4('192.0.0.0'), 24, 'reserved'],
  [ipv4('192.0.2.0'), 24, 'reserved'],
  [ipv4('192.88.99.0'), 24, 'reserved'],
  [ipv4('192.168.0.0'), 16, 'private'],
  [ipv4('198.18.0.0'), 15, 'reserved'],
  [ipv4('198.51.100.0'), 24, 'reserved'],
  [ipv4('203.0.113.0'), 24, 'reserved'],
  [ipv4('224.0.0.0'), 4, 'multicast'],
  [ipv4('240.0.0.0'), 4, 'reserved'],
];

function ipv4(text: string): number {
  const parts = text.split('.').map(Number);
  return (((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0) as number;
}

function inV4Range(address: number, base: number, prefix: number): boolean {
  if (prefix === 0) return true;
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (address & mask) >>> 0 === (base & mask) >>> 0;
}

function classifyIPv4(address: number): AddressClass {
  for (const [base, prefix, kind] of IPV4_RANGES) if (inV4Range(address, base, prefix)) return kind;
  return 'public';
}

/** The eight 16-bit groups of a valid IPv6 address (zone id dropped, dotted IPv4 tail folded in). */
function ipv6Groups(text: string): number[] {
  let s = text.split('%')[0]!;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = ipv4(tail);
    s = `${s.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, rest] = s.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  if (rest === undefined) return headGroups.map((g) => Number.parseInt(g, 16));
  const restGroups = rest === '' ? [] : rest.split(':');
  const zeros = new Array<string>(8 - headGroups.length - restGroups.length).fill('0');
  return [...headGroups, ...zeros, ...restGroups].map((g) => Number.parseInt(g, 16));
}

function embeddedV4(high: number, low: number): number {
  return ((high << 16) | low) >>> 0;
}

function classifyIPv6(g: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::ffff:a.b.c.d reaches a.b.c.d: judge it as that IPv4 address.
  if (firstFiveZero && g5 === 0xffff) return classifyIPv4(embeddedV4(g6, g7));
  if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) also lead to the IPv4 address they carry.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0)
    return classifyIPv4(embeddedV4(g6, g7));
  if (g0 === 0x2002) return classifyIPv4(embeddedV4(g1, g2));
  // AWS's IPv6 instance metadata (fd00:ec2::254) and EKS Pod Identity (fd00:ec2::23).
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0) {
    if (g7 === 0x254 || g7 === 0x23) return 'cloud-metadata';
  }
  // Any other form that ends in a metadata address (fe80::a9fe:a9fe, IPv4-compatible
  // ::169.254.169.254, ::ffff:0:169.254.169.254, local-use NAT64) is named for what it may reach.
  if ((g0 & 0xe000) !== 0x2000 && classifyIPv4(embeddedV4(g6, g7)) === 'cloud-metadata')
    return 'cloud-metadata';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique-local';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  // Inside global unicast (2000::/3): IETF protocol assignments incl. Teredo, and documentation.
  if (g0 === 0x2001 && g1 < 0x0200) return 'reserved';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved';
  if (g0 === 0x3fff && g1 < 0x1000) return 'reserved';
  // Everything outside 2000::/3 (IPv4-compatible, discard-only, site-local, unassigned) is not a receiver.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/** The class of an IP address written as text; `undefined` when it is not an IP address. */
export function classifyAddress(address: string): AddressClass | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (net.isIPv4(bare)) return classifyIPv4(ipv4(bare));
  if (net.isIPv6(bare)) return classifyIPv6(ipv6Groups(bare));
  return undefined;
}
