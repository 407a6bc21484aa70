// SSRF guard: decides whether the dispatcher may connect to an address. The check runs on the address the socket
// actually connects to (see http-sender.ts), so a name that resolves to a public address at validation time and a
// private one later (DNS rebinding) is still refused. IPv4-mapped, NAT64 and 6to4 IPv6 forms are checked as the IPv4
// address they carry. WEBHOOK_ALLOWED_CIDRS opens chosen ranges (tests open loopback).
import { BlockList, isIP } from 'node:net';

// Ranges no webhook may reach: "this network", private, CGNAT, loopback, link-local (cloud metadata), IETF protocol
// assignments, documentation, benchmarking, multicast, reserved and broadcast.
const BLOCKED_V4 = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
// Unspecified, loopback, IPv4-compatible, discard, IETF assignments (Teredo, ORCHID...), documentation, unique
// local, link-local, site-local, multicast, and the local-use NAT64 prefix.
const BLOCKED_V6 = [
  '::/128',
  '::1/128',
  '::/96',
  '64:ff9b:1::/48',
  '100::/64',
  '2001::/23',
  '2001:db8::/32',
  '3fff::/20',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
];

export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

export function parseCidr(text: string): Cidr {
  const [address, prefixText] = text.trim().split('/');
  const version = isIP(address ?? '');
  if (version === 0) throw new Error(`not an IP range: ${text}`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > max ||
    (prefixText !== undefined && !/^\d+$/.test(prefixText))
  ) {
    throw new Error(`bad prefix length in ${text}`);
  }
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Parses a comma-separated list of CIDRs (empty string: none). */
export function parseCidrList(text: string): Cidr[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseCidr);
}

function blockList(cidrs: readonly Cidr[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) list.addSubnet(c.address, c.prefix, c.family);
  return list;
}

/** The eight 16-bit groups of an IPv6 address (with an embedded dotted IPv4 tail converted). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...fill, ...tailGroups].map((g) => parseInt(g, 16));
}

function v4FromGroups(hi: number, lo: number): string {
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The IPv4 address an IPv6 address stands for (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16). */
export function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const g = ipv6Groups(address);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4FromGroups(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4FromGroups(g[6], g[7]);
  if (g[0] === 0x2002) return v4FromGroups(g[1], g[2]);
  return undefined;
}

export interface AddressGuard {
  /** Why the address is refused, or undefined when it may be connected to. */
  check(address: string): string | undefined;
}

export function createAddressGuard(allowed: readonly Cidr[] = []): AddressGuard {
  const blocked = blockList([...BLOCKED_V4, ...BLOCKED_V6].map(parseCidr));
  const allow = blockList(allowed);
  const matches = (list: BlockList, address: string): boolean => {
    const v = isIP(address);
    return v !== 0 && list.check(address, v === 4 ? 'ipv4' : 'ipv6');
  };
  return {
    check(raw) {
      const address = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
      if (isIP(address) === 0) return `not an IP address: ${raw}`;
      const v4 = embeddedIpv4(address);
      if (matches(allow, address) || (v4 !== undefined && matches(allow, v4))) return undefined;
      if (matches(blocked, address) || (v4 !== undefined && matches(blocked, v4))) {
        return `address ${address} is in a private or reserved range`;
      }
      return undefined;
    },
  };
}
