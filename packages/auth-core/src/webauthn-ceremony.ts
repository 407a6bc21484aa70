// The WebAuthn ceremonies with this server's relying party, over @simplewebauthn/server: options to hand a browser,
// and verification of what its authenticator answered (attestation at registration, assertion at sign-in). Any
// failure of a response (wrong challenge, origin, RP ID, signature, counter, malformed JSON) is one error to the
// client, 400 webauthn_verification_failed, as GoTrue answers.
import { isObject } from './auth-input.js';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { UserRow } from './user-repository.js';
import type { CredentialRow, NewCredential } from './webauthn-credentials.js';
import { webauthnErrors } from './webauthn-errors.js';

// @simplewebauthn/server and its ASN.1 and COSE libraries add about 13 MB to a process: imported by each ceremony
// (Node keeps the module once loaded), not by every server process at start.
const simpleWebAuthn = () => import('@simplewebauthn/server');

export interface RelyingParty {
  /** The RP ID: the domain credentials are scoped to (the app's host or a parent domain of it). */
  id: string;
  /** Shown by the browser while creating a credential. */
  name: string;
  /** The origins (scheme, host, port) whose pages may run the ceremonies. */
  origins: string[];
  challengeSeconds: number;
}

/** The user handle stored in a credential: the user id's text, as GoTrue's WebAuthnID() gives it. */
function userHandle(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId, 'utf8'));
}

function descriptors(credentials: CredentialRow[]) {
  return credentials.map((c) => ({ id: c.credential_id, transports: c.transports }));
}

/** Options for navigator.credentials.create(): `residentKey` required for passkeys, discouraged for MFA keys. */
export async function creationOptions(
  rp: RelyingParty,
  user: UserRow,
  exclude: CredentialRow[],
  residentKey: 'required' | 'discouraged',
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const name = user.email || user.phone || user.id;
  const displayName = typeof user.raw_user_meta_data?.name === 'string' ? user.raw_user_meta_data.name : name;
  const { generateRegistrationOptions } = await simpleWebAuthn();
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userID: userHandle(user.id),
    userName: name,
    userDisplayName: displayName,
    timeout: rp.challengeSeconds * 1000,
    attestationType: 'none',
    excludeCredentials: descriptors(exclude),
    authenticatorSelection: {
      residentKey,
      requireResidentKey: residentKey === 'required',
      userVerification: 'preferred',
    },
  });
}

/** Options for navigator.credentials.get(): empty `allow` for a discoverable (passkey) sign-in. */
export async function requestOptions(
  rp: RelyingParty,
  allow: CredentialRow[],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { generateAuthenticationOptions } = await simpleWebAuthn();
  return generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: descriptors(allow),
    userVerification: 'preferred',
    timeout: rp.challengeSeconds * 1000,
  });
}

/** Verifies an attestation (format none or a verifiable one) against the stored challenge; the new key's data. */
export async function verifyCreation(
  rp: RelyingParty,
  response: unknown,
  expectedChallenge: string,
): Promise<Omit<NewCredential, 'userId' | 'factorId' | 'friendlyName'>> {
  if (!isObject(response)) throw webauthnErrors.verificationFailed('Invalid credential response');
  const { verifyRegistrationResponse } = await simpleWebAuthn();
  const result = await verifyRegistrationResponse({
    response: response as unknown as RegistrationResponseJSON,
    expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    // As GoTrue: user verification is asked for ('preferred'), user presence required.
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!result?.verified) throw webauthnErrors.verificationFailed();
  const info = result.registrationInfo;
  return {
    credentialId: info.credential.id,
    publicKey: info.credential.publicKey,
    signCount: info.credential.counter,
    transports: Array.isArray(info.credential.transports) ? info.credential.transports : [],
    aaguid: info.aaguid,
    backupEligible: info.credentialDeviceType === 'multiDevice',
    backedUp: info.credentialBackedUp,
  };
}

/** The credential id an assertion names (its rawId), or 400 when the response is not one. */
export function assertedCredentialId(response: unknown): string {
  if (!isObject(response) || typeof response.rawId !== 'string' || response.id !== response.rawId) {
    throw webauthnErrors.verificationFailed('Invalid credential response');
  }
  return response.rawId;
}

/** The user handle an assertion carries (base64url in its JSON), decoded; undefined when absent. */
export function assertedUserHandle(response: unknown): string | undefined {
  const handle = isObject(response) && isObject(response.response) ? response.response.userHandle : undefined;
  return typeof handle === 'string' && handle ? Buffer.from(handle, 'base64url').toString('utf8') : undefined;
}

/** Verifies an assertion by `stored` against the stored challenge; the authenticator's new signature counter. */
export async function verifyAssertion(
  rp: RelyingParty,
  response: unknown,
  expectedChallenge: string,
  stored: CredentialRow,
): Promise<number> {
  const { verifyAuthenticationResponse } = await simpleWebAuthn();
  const result = await verifyAuthenticationResponse({
    response: response as AuthenticationResponseJSON,
    expectedChallenge,
    expectedOrigin: rp.origins,
    expectedRPID: rp.id,
    credential: {
      id: stored.credential_id,
      publicKey: new Uint8Array(stored.public_key),
      // The library refuses a counter that does not rise above this one (a cloned authenticator).
      counter: Number(stored.sign_count),
      transports: stored.transports as never,
    },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!result?.verified) throw webauthnErrors.verificationFailed();
  return result.authenticationInfo.newCounter;
}
