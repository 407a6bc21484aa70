// OAuth / OpenID Connect sign-in: GET /authorize sends the browser to the provider with a stored single-use
// state, a nonce and PKCE towards the provider; GET|POST /callback checks all three (openid-client) and answers
// where to send the browser: the app with a session in the fragment, or with `?code=` in a PKCE flow.
import * as oidc from 'openid-client';
import type postgres from 'postgres';
import type { AuthService } from './auth-service.js';
import type { RequestMeta } from './auth-settings.js';
import { AuthError, authErrors } from './errors.js';
import { accountForProvider, type ProviderClaims } from './oauth-account.js';
import type { ProviderRegistry } from './oauth-providers.js';
import { completeFromUserInfo } from './oidc-userinfo.js';
import { hashToken, randomToken } from './opaque-token.js';
import { FLOW_STATE_SECONDS, issueAuthCode, type PkceChallenge } from './pkce-flow.js';
import type { SessionJson } from './user-view.js';

interface OAuthSettings {
  publicUrl: string;
  disableSignup: boolean;
  autoconfirm: boolean;
}

/** `oauthError`: the provider's own `error` (access_denied, ...), passed on to the app as it came. */
export type CallbackOutcome =
  | { session: SessionJson }
  | { authCode: string }
  | { error: AuthError; oauthError?: string };

interface OAuthFlowRow {
  id: string;
  provider_type: string;
  nonce: string;
  provider_code_verifier: string;
  redirect_to: string;
  link_user_id: string | null;
  code_challenge: string | null;
  expired: boolean;
}

export function createOAuthService(
  sql: postgres.Sql,
  auth: AuthService,
  registry: ProviderRegistry,
  settings: OAuthSettings,
) {
  const callbackUrl = `${settings.publicUrl}/auth/v1/callback`;

  /** Spends the state: a second callback with it finds nothing. The row stays for a PKCE auth code. */
  async function spendState(state: string): Promise<OAuthFlowRow | undefined> {
    const [flow] = await sql<OAuthFlowRow[]>`
      update auth.flow_state set oauth_state_hash = null
      where oauth_state_hash = ${hashToken(state)}
      returning id, provider_type, nonce, provider_code_verifier, redirect_to, link_user_id, code_challenge,
        created_at < now() - make_interval(secs => ${FLOW_STATE_SECONDS}) as expired`;
    return flow;
  }

  async function finish(flow: OAuthFlowRow, callback: URL, state: string, meta: RequestMeta): Promise<CallbackOutcome> {
    if (flow.expired) throw authErrors.badOAuthState('OAuth state has expired');
    const provider = registry.get(flow.provider_type);
    const providerError = callback.searchParams.get('error');
    if (providerError) {
      const description = callback.searchParams.get('error_description') ?? providerError;
      return { error: new AuthError(400, 'bad_oauth_callback', description), oauthError: providerError };
    }
    const configuration = await provider.configuration();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: flow.provider_code_verifier,
        expectedState: state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      // A refused code, a forged or replayed ID token, a nonce that does not match: the provider's answer is void.
      throw authErrors.badOAuthCallback(`OAuth callback failed: ${(error as Error).message}`);
    }
    const claims = await completeFromUserInfo(configuration, tokens.access_token, tokens.claims() as ProviderClaims);
    const user = await accountForProvider(sql, flow.provider_type, claims, {
      linkUserId: flow.link_user_id,
      disableSignup: settings.disableSignup,
      autoconfirm: settings.autoconfirm,
    });
    if (flow.code_challenge) return { authCode: await issueAuthCode(sql, flow.id, user.id) };
    await sql`delete from auth.flow_state where id = ${flow.id}`;
    return { session: await auth.signInAs(user, 'oauth', meta) };
  }

  return {
    /** The provider's authorization URL; the flow's state, nonce and verifier are kept for the callback. */
    async authorize(input: {
      provider: unknown;
      redirectTo?: string;
      scopes?: string;
      pkce?: PkceChallenge;
      linkUserId?: string;
    }): Promise<string> {
      const provider = registry.get(input.provider);
      const configuration = await provider.configuration();
      const state = randomToken();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      await sql`delete from auth.flow_state where created_at < now() - interval '1 day'`;
      await sql`
        insert into auth.flow_state (code_challenge, code_challenge_method, authentication_method, provider_type,
          oauth_state_hash, nonce, provider_code_verifier, redirect_to, link_user_id)
        values (${input.pkce?.challenge ?? null}, ${input.pkce?.method ?? null}, 'oauth', ${provider.settings.name},
          ${hashToken(state)}, ${nonce}, ${verifier}, ${auth.redirectTarget(input.redirectTo)},
          ${input.linkUserId ?? null})`;
      const scopes = new Set(['openid', 'email', 'profile', ...(input.scopes ?? '').split(/[\s,]+/).filter(Boolean)]);
      return oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: callbackUrl,
        scope: [...scopes].join(' '),
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).href;
    },

    /**
     * The provider's redirect (query, or form body for providers that post): where to send the browser and with
     * what. Without a known state there is no app URL of the flow: the default redirect target is used.
     */
    async callback(
      params: URLSearchParams,
      meta: RequestMeta,
    ): Promise<{ redirectTo: string; outcome: CallbackOutcome }> {
      const state = params.get('state');
      const flow = state ? await spendState(state) : undefined;
      const redirectTo = flow?.redirect_to ?? auth.redirectTarget(undefined);
      try {
        if (!state) throw authErrors.badOAuthCallback('OAuth state parameter missing');
        if (!flow) throw authErrors.badOAuthState('OAuth state not found or expired');
        const callback = new URL(callbackUrl);
        callback.search = params.toString();
        return { redirectTo, outcome: await finish(flow, callback, state, meta) };
      } catch (error) {
        if (error instanceof AuthError) return { redirectTo, outcome: { error } };
        throw error;
      }
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
