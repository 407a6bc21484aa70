// The client IP used by rate limits: the socket's address, or, only when the socket is a configured trusted
// proxy, the right-most X-Forwarded-For entry that is not itself a trusted proxy. A client-supplied header
// from anywhere else is ignored, so it cannot reset a limit.
import { BlockList, isIP } from 'node:net';
import type { Context } from 'hono';
import type { AppEnv } from '../context.js';
import { requestHeader } from './response-headers.js';

export function parseCidrs(list: string): BlockList {
  const blocks = new BlockList();
  for (const raw of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [addr, bits] = raw.split('/');
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (!isIP(addr)) throw new Error(`not an IP range: ${raw}`);
    blocks.addSubnet(addr, bits ? Number(bits) : type === 'ipv6' ? 128 : 32, type);
  }
  return blocks;
}

function trusted(blocks: BlockList, ip: string): boolean {
  const kind = isIP(ip);
  if (!kind) return false;
  const mapped = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : undefined;
  return blocks.check(mapped ?? ip, mapped ? 'ipv4' : kind === 6 ? 'ipv6' : 'ipv4');
}

/** Whether the socket address is one of the trusted proxies (also used for X-Forwarded-Proto). */
export { trusted as isTrustedProxy };

export function clientIpOf(c: Context<AppEnv>, trustedProxies: BlockList, anyTrusted: boolean): string {
  let ip = c.env?.incoming?.socket.remoteAddress ?? '0.0.0.0';
  if (anyTrusted && trusted(trustedProxies, ip)) {
    const hops = (requestHeader(c, 'x-forwarded-for') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => isIP(s));
    while (hops.length > 0) {
      const hop = hops.pop()!;
      ip = hop;
      if (!trusted(trustedProxies, hop)) break;
    }
  }
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
