// E-mail one-time codes and magic links: POST /otp (signInWithOtp) and POST /resend. Each address may be sent
// AUTH_RATE_LIMIT_RECOVER mails per window, as for password recovery; the answer is `{}` for any valid address.
import { Hono } from 'hono';
import { pkceChallenge, validEmail } from '@auction-ops/auth-core';
import type { AppEnv } from '../../context.js';
import { enforceLimit, jsonBody, perIpLimit, queryString } from './auth-http.js';
import type { AuthDeps } from './deps.js';

export function otpRoutes({ otp, limiter, limits }: AuthDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', perIpLimit(limiter, limits));
  app.post('/otp', async (c) => {
    const body = await jsonBody(c);
    const email = validEmail(body.email);
    await enforceLimit(c, limiter, 'recover', email, limits.recover);
    await otp.signInWithOtp({
      email,
      createUser: body.create_user !== false,
      data: body.data,
      redirectTo: queryString(c, 'redirect_to'),
      pkce: pkceChallenge(body.code_challenge, body.code_challenge_method),
    });
    return c.json({});
  });
  app.post('/resend', async (c) => {
    const body = await jsonBody(c);
    const email = validEmail(body.email);
    await enforceLimit(c, limiter, 'recover', email, limits.recover);
    await otp.resend({
      type: body.type,
      email,
      redirectTo: queryString(c, 'redirect_to'),
      pkce: pkceChallenge(body.code_challenge, body.code_challenge_method),
    });
    return c.json({});
  });
  return app;
}
