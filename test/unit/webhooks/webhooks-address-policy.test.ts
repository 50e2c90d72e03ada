import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedClass } from '../../../src/webhooks/address-policy.js';

describe('webhook address classification (SSRF guard)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['203.0.113.5', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['::ffff:100.64.0.1', 'shared'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['::ffff:224.0.0.1', 'multicast'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'reserved'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['100::1', 'reserved'],
    ['5f00::1', 'reserved'],
  ])('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
  ])('treats %s as public', (address) => {
    expect(classifyAddress(address)).toBe('public');
  });

  it('is not fooled by host names: they are not addresses', () => {
    expect(classifyAddress('localhost')).toBeUndefined();
    expect(classifyAddress('127.0.0.1.nip.io')).toBeUndefined();
  });

  it.each([
    '169.254.169.254',
    '169.254.170.2',
    '169.254.170.23',
    '169.254.0.23',
    '100.100.100.200',
    '168.63.129.16',
    '192.0.0.192',
    'fd00:ec2::254',
    'fd00:ec2::23',
    'fe80::a9fe:a9fe',
    'fe80::a9fe:aa02',
    '::ffff:169.254.170.2',
    '::ffff:a9fe:aa02',
    '::ffff:100.100.100.200',
    '::169.254.169.254',
    '::a9fe:a9fe',
    '::ffff:0:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::a9fe:a9fe',
    '2002:a9fe:a9fe::1',
    '2002:6464:64c8::',
  ])('names %s a cloud metadata address, in whatever form', (address) => {
    expect(classifyAddress(address)).toBe('cloud-metadata');
  });

  it('lets WEBHOOK_ALLOW_PRIVATE_NETWORKS admit private networks, never metadata, link-local, multicast or reserved ones', () => {
    for (const kind of ['loopback', 'private', 'shared', 'unique-local'] as const) {
      expect(isAllowedClass(kind, false)).toBe(false);
      expect(isAllowedClass(kind, true)).toBe(true);
    }
    for (const kind of ['cloud-metadata', 'link-local', 'unspecified', 'multicast', 'reserved'] as const) {
      expect(isAllowedClass(kind, true)).toBe(false);
    }
    expect(isAllowedClass('public', false)).toBe(true);
  });
});
