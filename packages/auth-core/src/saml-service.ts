// SAML 2.0 SSO as GoTrue does it, on @node-saml/node-saml: POST /sso sends the user to the identity provider with
// a signed AuthnRequest and a single-use relay state; POST /sso/saml/acs checks the provider's answer (signature
// with the certificates of its metadata, issuer, audience, time window, InResponseTo of that very request,
// recipient) and signs the user in, implicitly or with a PKCE auth code. Our SP metadata is at /sso/saml/metadata.
import { createHash, randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import type { AuthService } from './auth-service.js';
import type { RequestMeta } from './auth-settings.js';
import { AuthError, authErrors } from './errors.js';
import { createFlowState, issueAuthCode, type PkceChallenge } from './pkce-flow.js';
import { checkAddressing, emailOf, mappedClaims, samlErrors, subjectOf } from './saml-assertion.js';
import { parseIdpMetadata } from './saml-metadata.js';
import { fetchMetadata } from './saml-metadata-source.js';
import { accountForSso } from './sso-account.js';
import { ssoErrors } from './sso-errors.js';
import { findProviderByDomain, findProviderById, NAME_ID_FORMATS, type SsoProviderRow } from './sso-provider-store.js';
import type { SessionJson } from './user-view.js';
import { type CacheProvider, SAML, type SamlProfile as Profile } from './xml-libraries.js';

export interface SamlSettings {
  publicUrl: string;
  /** The SP's RSA key (PEM): signs AuthnRequests and, when allowed, decrypts assertions. */
  privateKeyPem: string;
  /** A certificate of that key, published in our metadata. */
  certificatePem: string;
  allowEncryptedAssertions: boolean;
  relayStateSeconds: number;
  disableSignup: boolean;
}

export type SamlOutcome = { session: SessionJson } | { authCode: string } | { error: AuthError };

/** Clock difference tolerated between us and the identity provider on NotBefore / NotOnOrAfter. */
const CLOCK_SKEW_MS = 30_000;
const PERSISTENT = NAME_ID_FORMATS[0]!;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METADATA_REFRESH_MS = 24 * 3600 * 1000;

/** The one request id the answer may respond to: node-saml's InResponseTo check looks it up here. */
function singleRequestCache(requestId: string): CacheProvider {
  let pending: string | null = requestId;
  return {
    saveAsync: async () => null,
    getAsync: async (key) => (key === pending ? new Date().toISOString() : null),
    removeAsync: async (key) => {
      if (key === pending) pending = null;
      return key;
    },
  };
}

interface RelayStateRow {
  sso_provider_id: string;
  request_id: string;
  redirect_to: string;
  flow_state_id: string | null;
  expired: boolean;
}

export function createSamlService(sql: postgres.Sql, auth: AuthService, settings: SamlSettings) {
  const base = `${settings.publicUrl}/auth/v1`;
  const entityId = `${base}/sso/saml/metadata`;
  const acsUrl = `${base}/sso/saml/acs`;

  function serviceProvider(provider: SsoProviderRow, extra: { requestId: string; ssoUrl: string; certs: string[] }) {
    return new SAML({
      issuer: entityId,
      callbackUrl: acsUrl,
      entryPoint: extra.ssoUrl,
      idpCert: extra.certs,
      idpIssuer: provider.entity_id,
      audience: entityId,
      privateKey: settings.privateKeyPem,
      signatureAlgorithm: 'sha256',
      ...(settings.allowEncryptedAssertions ? { decryptionPvk: settings.privateKeyPem } : {}),
      identifierFormat: provider.name_id_format ?? PERSISTENT,
      disableRequestedAuthnContext: true,
      // Either the response or the assertion must carry a valid signature (as GoTrue's crewjam/saml accepts).
      wantAuthnResponseSigned: false,
      wantAssertionsSigned: false,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      generateUniqueId: () => extra.requestId,
      validateInResponseTo: 'always',
      requestIdExpirationPeriodMs: settings.relayStateSeconds * 1000,
      cacheProvider: singleRequestCache(extra.requestId),
    });
  }

  /** The provider's metadata; metadata from a URL is fetched again when stale, keeping the old one on failure. */
  async function currentMetadata(provider: SsoProviderRow) {
    const metadata = parseIdpMetadata(provider.metadata_xml);
    const stale =
      (metadata.validUntil && metadata.validUntil < new Date()) ||
      Date.now() - new Date(provider.updated_at).getTime() > METADATA_REFRESH_MS;
    if (!provider.metadata_url || !stale) return metadata;
    try {
      const xml = await fetchMetadata(provider.metadata_url);
      const fresh = parseIdpMetadata(xml);
      if (fresh.entityId !== provider.entity_id) return metadata;
      await sql`update auth.sso_providers set metadata_xml = ${xml}, updated_at = now() where id = ${provider.id}`;
      return fresh;
    } catch {
      return metadata;
    }
  }

  async function spendRelayState(value: string): Promise<RelayStateRow> {
    if (!value || !UUID_RE.test(value)) {
      // An IdP-initiated answer (no relay state, or a URL) has no request of ours to respond to: refused.
      throw authErrors.validation('SAML RelayState is not a valid UUID: only SP-initiated sign-in is supported');
    }
    const [row] = await sql<RelayStateRow[]>`
      delete from auth.saml_relay_states where id = ${value}
      returning sso_provider_id, request_id, redirect_to, flow_state_id,
        created_at < now() - make_interval(secs => ${settings.relayStateSeconds}) as expired`;
    if (!row) throw samlErrors.relayStateNotFound();
    if (row.expired) throw samlErrors.relayStateExpired();
    return row;
  }

  async function finish(form: Record<string, string>, relay: RelayStateRow, meta: RequestMeta): Promise<SamlOutcome> {
    const provider = await findProviderById(sql, relay.sso_provider_id);
    if (!provider) throw ssoErrors.providerNotFound('Unable to find SSO Provider from SAML RelayState');
    if (provider.disabled) throw ssoErrors.providerDisabled();
    const metadata = await currentMetadata(provider);
    if (!form.SAMLResponse) throw authErrors.validation('SAMLResponse is missing');
    const sp = serviceProvider(provider, {
      requestId: relay.request_id,
      ssoUrl: metadata.ssoUrl,
      certs: metadata.signingCerts,
    });
    let profile: Profile;
    try {
      const result = await sp.validatePostResponseAsync({ SAMLResponse: form.SAMLResponse });
      if (!result.profile) throw new Error('no assertion in the response');
      profile = result.profile;
    } catch (error) {
      throw samlErrors.invalidAssertion((error as Error).message);
    }
    checkAddressing(profile, acsUrl, provider.entity_id);
    const subject = subjectOf(profile);
    if (!subject) throw samlErrors.noUserId();
    const mapped = mappedClaims(profile, provider.attribute_mapping);
    const email = emailOf(profile, mapped);
    if (!email) throw samlErrors.noEmail();
    const user = await accountForSso(
      sql,
      provider.id,
      { subject, email, mapped, issuer: provider.entity_id },
      { disableSignup: settings.disableSignup },
    );
    if (relay.flow_state_id) return { authCode: await issueAuthCode(sql, relay.flow_state_id, user.id) };
    return { session: await auth.signInAs(user, 'sso/saml', meta) };
  }

  return {
    entityId,
    acsUrl,

    /** POST /sso: the identity provider's URL with our AuthnRequest and the relay state that waits for its answer. */
    async start(input: {
      providerId?: unknown;
      domain?: unknown;
      redirectTo?: string;
      pkce?: PkceChallenge;
    }): Promise<string> {
      const hasId = input.providerId !== undefined && input.providerId !== null && input.providerId !== '';
      const hasDomain = input.domain !== undefined && input.domain !== null && input.domain !== '';
      if (hasId && hasDomain) throw authErrors.validation('Only one of provider_id or domain supported');
      if (!hasId && !hasDomain) throw authErrors.validation('A provider_id or domain needs to be provided');
      if (hasDomain && typeof input.domain !== 'string') throw authErrors.validation('domain must be a string');
      const provider = hasId
        ? typeof input.providerId === 'string' && UUID_RE.test(input.providerId)
          ? await findProviderById(sql, input.providerId)
          : undefined
        : await findProviderByDomain(sql, input.domain as string);
      if (!provider)
        throw ssoErrors.providerNotFound(hasId ? 'No such SSO provider' : 'No SSO provider assigned for this domain');
      if (provider.disabled) throw ssoErrors.providerDisabled();
      const metadata = await currentMetadata(provider);
      const redirectTo = auth.redirectTarget(input.redirectTo);
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const relayStateId = await sql.begin(async (tx) => {
        await tx`delete from auth.saml_relay_states where created_at < now() - interval '1 day'`;
        const flowStateId = input.pkce
          ? await createFlowState(tx, {
              userId: null,
              authenticationMethod: 'sso/saml',
              providerType: 'sso/saml',
              pkce: input.pkce,
            })
          : null;
        const [row] = await tx<Array<{ id: string }>>`
          insert into auth.saml_relay_states (sso_provider_id, request_id, redirect_to, flow_state_id)
          values (${provider.id}, ${requestId}, ${redirectTo}, ${flowStateId}) returning id`;
        return row!.id;
      });
      const sp = serviceProvider(provider, { requestId, ssoUrl: metadata.ssoUrl, certs: metadata.signingCerts });
      return sp.getAuthorizeUrlAsync(relayStateId, undefined, {});
    },

    /**
     * POST /sso/saml/acs: where to send the browser and with what. Failures go to the default redirect target
     * (GoTrue sends them to SITE_URL), successes to the redirect_to the sign-in began with.
     */
    async acs(form: Record<string, string>, meta: RequestMeta): Promise<{ redirectTo: string; outcome: SamlOutcome }> {
      let redirectTo = auth.redirectTarget(undefined);
      try {
        const relay = await spendRelayState(form.RelayState ?? '');
        const outcome = await finish(form, relay, meta);
        redirectTo = relay.redirect_to;
        return { redirectTo, outcome };
      } catch (error) {
        if (error instanceof AuthError) return { redirectTo, outcome: { error } };
        throw error;
      }
    },

    /**
     * Our SP metadata: entity id, ACS (HTTP-POST), the signing certificate (and encryption, when allowed). The
     * same document on every call and instance: its ID is derived from the entity id.
     */
    metadata(): string {
      const id = `_${createHash('sha256').update(entityId).digest('hex').slice(0, 40)}`;
      const sp = new SAML({
        generateUniqueId: () => id,
        issuer: entityId,
        callbackUrl: acsUrl,
        idpCert: settings.certificatePem,
        privateKey: settings.privateKeyPem,
        ...(settings.allowEncryptedAssertions ? { decryptionPvk: settings.privateKeyPem } : {}),
        identifierFormat: PERSISTENT,
        wantAssertionsSigned: true,
      });
      return sp.generateServiceProviderMetadata(
        settings.allowEncryptedAssertions ? settings.certificatePem : null,
        settings.certificatePem,
      );
    },
  };
}

export type SamlService = ReturnType<typeof createSamlService>;
