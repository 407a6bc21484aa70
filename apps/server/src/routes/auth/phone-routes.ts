// Phone numbers on the GoTrue endpoints that also serve e-mail: POST /signup, /token?grant_type=password, /otp,
// /verify and /resend with a `phone` (or an sms / phone_change type), PUT /user with a new `phone`, and phone
// factors under /factors. A request that names no number is handed on to the e-mail routes unchanged.
import { Hono, type Next } from 'hono';
import { subject } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { type AuthContext, callerClaims, enforceLimit, jsonBody, requestMeta } from './auth-http.js';
import type { AuthDeps } from './deps.js';

const PHONE_TYPES = ['sms', 'phone_change'] as const;
const isPhoneType = (type: unknown): type is (typeof PHONE_TYPES)[number] =>
  (PHONE_TYPES as readonly unknown[]).includes(type);

export function phoneRoutes({ phone, phoneFactors, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const perIp = (c: AuthContext) => enforceLimit(c, limiter, 'other', c.get('clientIp'), limits.other);

  app.post('/signup', async (c, next) => {
    const body = await jsonBody(c);
    if (body.phone === undefined) return next();
    await enforceLimit(c, limiter, 'signUp', c.get('clientIp'), limits.signUp);
    const { user, session } = await phone.signUp(
      {
        phone: body.phone,
        password: body.password,
        email: body.email,
        data: body.data,
        channel: body.channel,
        pkce: body.code_challenge,
      },
      requestMeta(c),
    );
    return c.json(session ? { ...session, ...user, user } : user);
  });

  app.post('/token', async (c, next) => {
    if (c.req.query('grant_type') !== 'password') return next();
    const body = await jsonBody(c);
    if (body.phone === undefined) return next();
    await enforceLimit(c, limiter, 'signIn', c.get('clientIp'), limits.signIn);
    const credentials = { phone: body.phone, password: body.password, email: body.email };
    return c.json(await phone.signInWithPassword(credentials, requestMeta(c)));
  });

  app.post('/otp', async (c, next) => {
    const body = await jsonBody(c);
    if (body.phone === undefined) return next();
    await perIp(c);
    return c.json(
      await phone.sendOtp({
        phone: body.phone,
        email: body.email,
        createUser: body.create_user !== false,
        data: body.data,
        channel: body.channel,
      }),
    );
  });

  app.post('/verify', async (c, next) => {
    const body = await jsonBody(c);
    if (!isPhoneType(body.type)) return next();
    await perIp(c);
    // Guessing a six-digit code is counted against the number it names, from any number of addresses.
    if (typeof body.phone === 'string') {
      await enforceLimit(c, limiter, 'otpVerify', `phone:${body.phone.replace(/\D/g, '')}`, limits.otpVerify);
    }
    return c.json(await phone.verify({ type: body.type, phone: body.phone, token: body.token }, requestMeta(c)));
  });

  app.post('/resend', async (c, next) => {
    const body = await jsonBody(c);
    if (!isPhoneType(body.type)) return next();
    await perIp(c);
    return c.json(await phone.resend({ type: body.type, phone: body.phone, email: body.email }));
  });

  // A new number is handled here, then the rest of the update (data, e-mail, password) by the user routes; the
  // answer's user gains `new_phone` while a code is out.
  app.put('/user', async (c: AuthContext, next: Next) => {
    const body = await jsonBody(c);
    if (body.phone === undefined || body.phone === '') return next();
    await perIp(c);
    const pending = await phone.changePhone(callerClaims(c), body.phone, body.channel);
    await next();
    if (c.res.status === 200 && Object.keys(pending).length > 0) {
      const user = (await c.res.json()) as Record<string, unknown>;
      c.res = undefined;
      c.res = c.json({ ...user, ...pending });
    }
  });

  app.post('/factors', async (c, next) => {
    const body = await jsonBody(c);
    if (body.factor_type !== 'phone') return next();
    await perIp(c);
    return c.json(await phoneFactors.enroll(callerClaims(c), body));
  });

  /** A phone factor of the caller's, else the TOTP routes take the request. */
  const phoneFactorOf = async (c: AuthContext) => {
    const claims = c.get('claims');
    const userId = claims && typeof claims.sub === 'string' ? claims.sub : '';
    return (await phoneFactors.isPhoneFactor(userId, c.req.param('id') ?? '')) ? callerClaims(c) : undefined;
  };

  app.post('/factors/:id/challenge', async (c, next) => {
    const claims = await phoneFactorOf(c);
    if (!claims) return next();
    await perIp(c);
    const body = await jsonBody(c);
    const channel = phone.channelOf(body.channel);
    return c.json(await phoneFactors.challenge(claims, c.req.param('id'), channel, c.get('clientIp')));
  });

  app.post('/factors/:id/verify', async (c, next) => {
    const claims = await phoneFactorOf(c);
    if (!claims) return next();
    await perIp(c);
    await enforceLimit(c, limiter, 'mfaVerify', subject(claims).userId, limits.mfaVerify);
    return c.json(await phoneFactors.verify(claims, c.req.param('id'), await jsonBody(c), c.get('clientIp')));
  });

  return app;
}
