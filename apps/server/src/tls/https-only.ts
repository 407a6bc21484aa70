// HTTPS only: a request that did not arrive over TLS (directly, or per X-Forwarded-Proto from a trusted proxy)
// gets 426 on every path but /health; answers over HTTPS carry Strict-Transport-Security. Registered before the
// gateway, so a plain request is refused before its API key or token is even looked at.
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context.js';
import { isTrustedProxy, parseCidrs } from '../middleware/client-ip.js';
import { requestHeader } from '../middleware/response-headers.js';
import type { Transport } from './transport-policy.js';

interface HttpsOnlyOptions {
  transport: Transport;
  trustedProxyCidrs: string;
  hstsMaxAgeSeconds: number;
}

type Outgoing = { setHeader(name: string, value: string): void; headersSent: boolean };

/** The middleware for this transport, or none: local development and ALLOW_INSECURE_HTTP have nothing to check. */
export function httpsOnly(options: HttpsOnlyOptions): MiddlewareHandler<AppEnv> | undefined {
  const { kind } = options.transport;
  if (kind === 'local' || kind === 'insecure') return undefined;
  const hsts = options.hstsMaxAgeSeconds > 0 ? `max-age=${options.hstsMaxAgeSeconds}` : undefined;
  const proxies = parseCidrs(options.trustedProxyCidrs);
  const withHsts: MiddlewareHandler<AppEnv> = async (c, next) => {
    const outgoing = (c.env as { outgoing?: Outgoing } | undefined)?.outgoing;
    // On Node's response before the route writes its head: the route's own headers then join it.
    if (hsts && outgoing) outgoing.setHeader('strict-transport-security', hsts);
    await next();
    if (hsts && !outgoing) c.res.headers.set('strict-transport-security', hsts);
  };
  const refuse = (c: Parameters<MiddlewareHandler<AppEnv>>[0], next: () => Promise<void>) => {
    if (c.req.path === '/health' || c.req.path.startsWith('/health/')) return next();
    return Promise.resolve(
      c.body(JSON.stringify({ message: 'HTTPS required' }), 426, {
        'content-type': 'application/json; charset=utf-8',
        upgrade: 'TLS/1.2, HTTP/1.1',
      }),
    );
  };
  if (kind === 'tls')
    // Plain requests reach this port too (see answerPlainHttpOnTlsPort); their socket is not a TLS one.
    return (c, next) => {
      const incoming = c.env?.incoming;
      return incoming && !(incoming.socket as { encrypted?: boolean }).encrypted ? refuse(c, next) : withHsts(c, next);
    };
  return (c, next) => {
    const socketIp = c.env?.incoming?.socket.remoteAddress ?? '';
    const proto = requestHeader(c, 'x-forwarded-proto');
    // A proxy chain lists one protocol per hop; the left-most is what the client used.
    const viaTls = proto !== undefined && isTrustedProxy(proxies, socketIp) && /^\s*https\s*(,|$)/i.test(proto);
    return viaTls ? withHsts(c, next) : refuse(c, next);
  };
}
