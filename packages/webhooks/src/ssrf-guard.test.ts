import { describe, expect, it } from 'vitest';
import { createAddressGuard, embeddedIpv4, parseCidr, parseCidrList } from './ssrf-guard.js';

describe('address guard', () => {
  const guard = createAddressGuard();
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '192.0.2.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    'fec0::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '0:0:0:0:0:ffff:a00:1',
    '64:ff9b::a00:1',
    '2002:c0a8:101::1',
    '[::1]',
    '::127.0.0.1',
  ])('refuses %s', (address) => {
    expect(guard.check(address)).toMatch(/private or reserved/);
  });
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows %s', (address) => {
    expect(guard.check(address)).toBeUndefined();
  });
  it('refuses what is not an address', () => {
    expect(guard.check('example.com')).toMatch(/not an IP/);
  });
  it('opens allowed ranges, including their mapped IPv6 forms', () => {
    const open = createAddressGuard(parseCidrList('127.0.0.0/8, 10.0.0.0/24'));
    expect(open.check('127.0.0.1')).toBeUndefined();
    expect(open.check('::ffff:127.0.0.1')).toBeUndefined();
    expect(open.check('10.0.0.9')).toBeUndefined();
    expect(open.check('10.0.1.9')).toMatch(/private/);
    expect(open.check('::1')).toMatch(/private/);
  });
});

describe('parsing', () => {
  it('reads CIDRs and refuses bad ones', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('::1')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    expect(parseCidrList('')).toEqual([]);
    expect(() => parseCidr('10.0.0.0/33')).toThrow();
    expect(() => parseCidr('nope/8')).toThrow();
    expect(() => parseCidr('10.0.0.0/x')).toThrow();
  });
  it('finds the IPv4 address inside mapped, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(embeddedIpv4('64:ff9b::c0a8:1')).toBe('192.168.0.1');
    expect(embeddedIpv4('2002:0a00:0001::')).toBe('10.0.0.1');
    expect(embeddedIpv4('2606:4700::1')).toBeUndefined();
    expect(embeddedIpv4('1.2.3.4')).toBeUndefined();
  });
});
