// A WebAuthn authenticator in software, for end-to-end tests of passkeys and WebAuthn factors: it holds one P-256
// key (node:crypto) and answers creation options with an attestation of format "none" and request options with a
// signed assertion, building clientDataJSON and authenticatorData byte for byte as a browser and an authenticator do.
// Its origin, RP ID and signature counter can be set wrong on purpose, to forge the answers a server must refuse.
import { createHash, createSign, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';

type Bytes = string | ArrayBuffer | ArrayBufferView;

/** What the options need to hold; binary fields as base64url (JSON, passkeys) or bytes (auth-js's MFA path). */
export interface CreationOptions {
  challenge: Bytes;
  rp: { id?: string };
  user: { id: Bytes };
}
export interface RequestOptions {
  challenge: Bytes;
  rpId?: string;
  allowCredentials?: Array<{ id: Bytes }>;
}

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

function base64url(value: Bytes): string {
  if (typeof value === 'string') return value;
  const bytes = ArrayBuffer.isView(value)
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
    : Buffer.from(value);
  return bytes.toString('base64url');
}

// CBOR (RFC 8949), only what an attestation object needs: unsigned and negative integers, byte and text strings,
// maps. Map keys are given in canonical order by the caller.
type Cbor = number | string | Buffer | Array<[number | string, Cbor]>;

function cborHead(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(n, 1);
  return head;
}

function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, text.length), text]);
  }
  if (Buffer.isBuffer(value)) return Buffer.concat([cborHead(2, value.length), value]);
  return Buffer.concat([cborHead(5, value.length), ...value.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly coseKey: Buffer;
  /** The user handle the relying party gave at creation (base64url); sent back in assertions. */
  userHandle: string | undefined;
  /** The signature counter; each assertion raises it by one first. Tests set it back to forge a clone. */
  counter = 0;

  constructor(
    /** The page's origin the browser writes into clientDataJSON. */
    public origin: string,
    /** The RP ID whose hash goes into authenticatorData; by default the one the options name. */
    public rpId?: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    // COSE_Key: kty EC2 (1: 2), alg ES256 (3: -7), crv P-256 (-1: 1), x (-2), y (-3).
    this.coseKey = cbor([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
  }

  get id(): string {
    return this.credentialId.toString('base64url');
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: Bytes): Buffer {
    return Buffer.from(
      JSON.stringify({ type, challenge: base64url(challenge), origin: this.origin, crossOrigin: false }),
    );
  }

  private flagsAndCount(flags: number, count: number): Buffer {
    const out = Buffer.alloc(5);
    out[0] = flags;
    out.writeUInt32BE(count, 1);
    return out;
  }

  /** navigator.credentials.create(): a RegistrationResponseJSON with attestation "none". */
  create(options: CreationOptions) {
    const rpId = this.rpId ?? options.rp.id!;
    this.userHandle = base64url(options.user.id);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(rpId),
      this.flagsAndCount(FLAG_USER_PRESENT | FLAG_USER_VERIFIED | FLAG_ATTESTED_DATA, this.counter),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      this.credentialId,
      this.coseKey,
    ]);
    const attestationObject = cbor([
      ['fmt', 'none'],
      ['attStmt', []],
      ['authData', authData],
    ]);
    const json = {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge).toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
    return json;
  }

  /** navigator.credentials.get(): an AuthenticationResponseJSON signed with this key. */
  get(options: RequestOptions, overrides: { userHandle?: string } = {}) {
    const allowed = options.allowCredentials ?? [];
    // A browser offers only listed credentials: an authenticator holding none of them has nothing to answer.
    if (allowed.length > 0 && !allowed.some((c) => base64url(c.id) === this.id)) {
      throw new Error('NotAllowedError: no listed credential is held by this authenticator');
    }
    const rpId = this.rpId ?? options.rpId!;
    this.counter += 1;
    const authenticatorData = Buffer.concat([
      sha256(rpId),
      this.flagsAndCount(FLAG_USER_PRESENT | FLAG_USER_VERIFIED, this.counter),
    ]);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge);
    const signature = createSign('SHA256')
      .update(Buffer.concat([authenticatorData, sha256(clientDataJSON)]))
      .sign(this.privateKey); // DER-encoded ECDSA, as WebAuthn's ES256 signatures are
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key' as const,
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: overrides.userHandle ?? this.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform' as const,
    };
  }
}

/** A credential as auth-js's mfa.verify takes it (a PublicKeyCredential it serializes with toJSON()). */
export function asPublicKeyCredential<T extends object>(json: T): T & { toJSON(): T } {
  return { ...json, toJSON: () => json };
}
