// A SAML 2.0 identity provider for tests: its metadata (entity id, SSO URL, signing certificate), the reading of
// the AuthnRequest our server sends it (HTTP-Redirect binding: deflated, base64), and Responses it signs for real
// with xml-crypto (RSA-SHA256, exclusive c14n), or also encrypted (xml-encryption), posted to the ACS as a browser would (HTTP-POST binding).
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { inflateRawSync } from 'node:zlib';
import { createLocalCertificates } from '@auction-ops/server-config/local-certificates';

// Loaded with require: xml-crypto's (and xml-encryption's) declarations pull TypeScript's DOM library into the whole program.
const require = createRequire(import.meta.url);
interface SignedXmlInstance {
  addReference(ref: { xpath: string; digestAlgorithm: string; transforms: string[] }): void;
  computeSignature(xml: string, options: { location: { reference: string; action: 'after' | 'prepend' } }): void;
  getSignedXml(): string;
}
const { SignedXml } = require('xml-crypto') as {
  SignedXml: new (options: {
    privateKey: string;
    publicCert?: string;
    signatureAlgorithm: string;
    canonicalizationAlgorithm: string;
  }) => SignedXmlInstance;
};
const xmlenc = require('xml-encryption') as {
  encrypt(
    content: string,
    options: { rsa_pub: string; pem: string; encryptionAlgorithm: string; keyEncryptionAlgorithm: string },
    callback: (error: Error | null, result?: string) => void,
  ): void;
};

export const NAMEID_PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
export const NAMEID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
export const NAMEID_TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';

export interface AuthnRequest {
  id: string;
  acsUrl: string;
  issuer: string;
  relayState: string;
  /** The redirect binding's signature over the query (the SP signs its requests). */
  signed: boolean;
}

export interface ResponseOptions {
  inResponseTo: string;
  acsUrl: string;
  audience: string;
  nameId: string;
  nameIdFormat?: string;
  attributes?: Record<string, string | string[]>;
  /** Assertion validity; defaults: from a minute ago to five minutes on. */
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** What carries the signature: the assertion (most providers), the whole response, or nothing. */
  sign?: 'assertion' | 'response' | 'none';
  /** Sign with another key than the one in the metadata. */
  signingKey?: { key: string; cert: string };
  issuer?: string;
  recipient?: string;
}

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const certBody = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
const newId = () => `_${randomBytes(16).toString('hex')}`;

export class FakeSamlIdp {
  readonly key: string;
  readonly cert: string;

  constructor(
    readonly entityId = `https://idp-${randomBytes(4).toString('hex')}.example.test/metadata`,
    readonly ssoUrl = 'https://idp.example.test/sso',
  ) {
    const { cert, key } = createLocalCertificates({ hosts: ['idp.example.test'] });
    this.cert = cert;
    this.key = key;
  }

  metadata(): string {
    return `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${xmlEscape(this.entityId)}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data>
        <ds:X509Certificate>${certBody(this.cert)}</ds:X509Certificate>
      </ds:X509Data></ds:KeyInfo>
    </md:KeyDescriptor>
    <md:NameIDFormat>${NAMEID_PERSISTENT}</md:NameIDFormat>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${xmlEscape(this.ssoUrl)}"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
  }

  /** What the browser brings from our server's redirect to the SSO URL. */
  readRequest(url: string): AuthnRequest {
    const to = new URL(url);
    if (`${to.origin}${to.pathname}` !== this.ssoUrl) throw new Error(`not sent to this provider: ${url}`);
    const xml = inflateRawSync(Buffer.from(to.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
    return {
      id: attr('ID'),
      acsUrl: attr('AssertionConsumerServiceURL'),
      issuer: /<saml:Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '',
      relayState: to.searchParams.get('RelayState') ?? '',
      signed: Boolean(to.searchParams.get('Signature') && to.searchParams.get('SigAlg')),
    };
  }

  /** A SAML Response as the base64 a browser posts. */
  response(options: ResponseOptions): string {
    const sign = options.sign ?? 'assertion';
    const assertion = this.assertion(options);
    const signer = options.signingKey ?? { key: this.key, cert: this.cert };
    return this.wrap(options, sign === 'assertion' ? this.sign(assertion, 'Assertion', signer) : assertion);
  }

  /** A response whose signed assertion is encrypted to the service provider's certificate (AES-256-GCM, RSA-OAEP). */
  async encryptedResponse(options: ResponseOptions, spCert: string): Promise<string> {
    const signed = this.sign(this.assertion(options), 'Assertion', { key: this.key, cert: this.cert });
    const encrypted = await new Promise<string>((resolve, reject) =>
      xmlenc.encrypt(
        signed,
        {
          rsa_pub: spCert,
          pem: spCert,
          encryptionAlgorithm: 'http://www.w3.org/2009/xmlenc11#aes256-gcm',
          keyEncryptionAlgorithm: 'http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p',
        },
        (error, result) => (error ? reject(error) : resolve(result!)),
      ),
    );
    return this.wrap({ ...options, sign: 'none' }, `<saml:EncryptedAssertion>${encrypted}</saml:EncryptedAssertion>`);
  }

  private assertion(options: ResponseOptions): string {
    const now = new Date();
    const notBefore = options.notBefore ?? new Date(now.getTime() - 60_000);
    const notOnOrAfter = options.notOnOrAfter ?? new Date(now.getTime() + 300_000);
    const issuer = xmlEscape(options.issuer ?? this.entityId);
    const assertionId = newId();
    const attributes = Object.entries(options.attributes ?? {})
      .map(
        ([name, value]) =>
          `<saml:Attribute Name="${xmlEscape(name)}">${[value]
            .flat()
            .map((v) => `<saml:AttributeValue>${xmlEscape(v)}</saml:AttributeValue>`)
            .join('')}</saml:Attribute>`,
      )
      .join('');
    return `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${now.toISOString()}"><saml:Issuer>${issuer}</saml:Issuer><saml:Subject><saml:NameID Format="${options.nameIdFormat ?? NAMEID_PERSISTENT}">${xmlEscape(options.nameId)}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${options.inResponseTo}" NotOnOrAfter="${notOnOrAfter.toISOString()}" Recipient="${xmlEscape(options.recipient ?? options.acsUrl)}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${notBefore.toISOString()}" NotOnOrAfter="${notOnOrAfter.toISOString()}"><saml:AudienceRestriction><saml:Audience>${xmlEscape(options.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>${attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : ''}</saml:Assertion>`;
  }

  /** The Response around an assertion (signed as a whole when asked), as base64. */
  private wrap(options: ResponseOptions, assertion: string): string {
    const issuer = xmlEscape(options.issuer ?? this.entityId);
    const response = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${new Date().toISOString()}" Destination="${xmlEscape(options.acsUrl)}" InResponseTo="${options.inResponseTo}"><saml:Issuer>${issuer}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>${assertion}</samlp:Response>`;
    const signer = options.signingKey ?? { key: this.key, cert: this.cert };
    const signed = options.sign === 'response' ? this.sign(response, 'Response', signer) : response;
    return Buffer.from(signed).toString('base64');
  }

  /** An enveloped signature over the element, placed after its Issuer (where the schema wants it). */
  private sign(xml: string, element: 'Assertion' | 'Response', signer: { key: string; cert: string }): string {
    const sig = new SignedXml({
      privateKey: signer.key,
      publicCert: signer.cert,
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
    });
    sig.addReference({
      xpath: `/*[local-name(.)='${element}']`,
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
      transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    });
    sig.computeSignature(xml, {
      location: { reference: `/*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: 'after' },
    });
    return sig.getSignedXml();
  }
}

/** The browser's form post of a response to the ACS; the answer is a redirect, not followed. */
export function postToAcs(acsUrl: string, samlResponse: string, relayState: string): Promise<Response> {
  return fetch(acsUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
    redirect: 'manual',
  });
}
