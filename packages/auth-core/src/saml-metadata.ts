// An identity provider's SAML metadata, read as GoTrue reads it: one EntityDescriptor with an entityID and exactly
// one IDPSSODescriptor, whose signing certificates check the provider's answers and whose HTTP-Redirect (or POST)
// SingleSignOnService receives our AuthnRequests.
import { X509Certificate } from 'node:crypto';
import { authErrors } from './errors.js';
import { DOMParser, type XmlDocument, type XmlNode, xpath } from './xml-libraries.js';

const HTTP_REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const HTTP_POST_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

export interface IdpMetadata {
  entityId: string;
  /** Where AuthnRequests go (HTTP-Redirect binding). */
  ssoUrl: string;
  /** PEM certificates that may sign the provider's responses and assertions. */
  signingCerts: string[];
  /** The metadata's validUntil, when given. */
  validUntil: Date | null;
}

const invalid = (why: string) => authErrors.validation(why);

function parseXml(xml: string): XmlDocument {
  const problems: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => {}, error: (m) => problems.push(m), fatalError: (m) => problems.push(m) },
  }).parseFromString(xml, 'text/xml');
  if (problems.length > 0 || !doc?.documentElement) throw invalid('SAML Metadata is not valid XML');
  return doc;
}

const select = (expr: string, node: XmlNode | XmlDocument) => xpath.select(expr, node) as XmlNode[];
const attr = (node: XmlNode, name: string) => node.getAttribute(name) ?? '';

function toPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw invalid('SAML Metadata contains a signing certificate that cannot be parsed');
  }
  return pem;
}

export function parseIdpMetadata(xml: string): IdpMetadata {
  const doc = parseXml(xml);
  const entities = select("//*[local-name()='EntityDescriptor']", doc).filter(
    (e) => select("./*[local-name()='IDPSSODescriptor']", e).length > 0,
  );
  const entity = entities[0];
  if (!entity) throw invalid('SAML Metadata does not contain any IDPSSODescriptor');
  const entityId = attr(entity, 'entityID');
  if (!entityId) throw invalid('SAML Metadata does not contain an EntityID');
  const descriptors = select("./*[local-name()='IDPSSODescriptor']", entity);
  if (descriptors.length > 1) throw invalid('SAML Metadata contains multiple IDPSSODescriptors');
  const idp = descriptors[0]!;
  const services = select("./*[local-name()='SingleSignOnService']", idp);
  const service =
    services.find((s) => attr(s, 'Binding') === HTTP_REDIRECT_BINDING) ??
    services.find((s) => attr(s, 'Binding') === HTTP_POST_BINDING);
  const ssoUrl = service ? attr(service, 'Location') : '';
  if (!ssoUrl) throw invalid('SAML Metadata does not contain a SingleSignOnService with the HTTP-Redirect binding');
  const signingCerts = select("./*[local-name()='KeyDescriptor']", idp)
    .filter((k) => ['', 'signing'].includes(attr(k, 'use')))
    .flatMap((k) => select(".//*[local-name()='X509Certificate']", k))
    .map((c) => toPem(c.textContent ?? ''));
  if (signingCerts.length === 0) throw invalid('SAML Metadata does not contain a signing certificate');
  const validUntilText = attr(entity, 'validUntil');
  const validUntil = validUntilText ? new Date(validUntilText) : null;
  return { entityId, ssoUrl, signingCerts, validUntil: validUntil && !Number.isNaN(+validUntil) ? validUntil : null };
}
