// Reading a validated SAML assertion as GoTrue does (its samlassertion.go): the user's stable id, the address, the
// claims of the provider's attribute mapping; and the addressing checks node-saml leaves to its caller.
import { AuthError, authErrors } from './errors.js';
import { NAME_ID_FORMATS, type AttributeMapping } from './sso-provider-store.js';
import { DOMParser, type SamlProfile as Profile, type XmlNode, xpath } from './xml-libraries.js';

const EMAIL_FORMAT = NAME_ID_FORMATS[1]!;
const TRANSIENT = NAME_ID_FORMATS[2]!;
const SUBJECT_ID_ATTRIBUTE = 'urn:oasis:names:tc:SAML:attribute:subject-id';
const EMAIL_ATTRIBUTES = [
  'urn:oid:0.9.2342.19200300.100.1.3',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'http://schemas.xmlsoap.org/claims/EmailAddress',
  'mail',
  'Mail',
  'email',
];

export const samlErrors = {
  relayStateNotFound: () =>
    new AuthError(404, 'saml_relay_state_not_found', 'SAML RelayState does not exist, try logging in again?'),
  relayStateExpired: () =>
    new AuthError(422, 'saml_relay_state_expired', 'SAML RelayState has expired. Try logging in again?'),
  invalidAssertion: (why: string) => authErrors.validation(`SAML Assertion is not valid: ${why}`),
  noUserId: () =>
    new AuthError(
      400,
      'saml_assertion_no_user_id',
      'SAML Assertion did not contain a persistent Subject Identifier attribute or Subject NameID uniquely identifying this user',
    ),
  noEmail: () => new AuthError(400, 'saml_assertion_no_email', 'SAML Assertion does not contain an email address'),
};

const attributeValues = (profile: Profile, name: string): string[] => {
  const value = (profile.attributes as Record<string, unknown> | undefined)?.[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((v): v is string => typeof v === 'string' && v !== '');
};

/** GoTrue's SAMLAssertion.UserID: the subject-id attribute, else a NameID that is not transient. */
export function subjectOf(profile: Profile): string {
  const attribute = attributeValues(profile, SUBJECT_ID_ATTRIBUTE)[0];
  if (attribute) return attribute;
  if (!profile.nameID || profile.nameIDFormat === TRANSIENT) return '';
  return profile.nameIDFormat === EMAIL_FORMAT ? profile.nameID.trim().toLowerCase() : profile.nameID;
}

/** GoTrue's SAMLAssertion.Process: claims named by the provider's attribute mapping. */
export function mappedClaims(profile: Profile, mapping: AttributeMapping): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  for (const [key, mapper] of Object.entries(mapping.keys ?? {})) {
    const names = [mapper.name ?? '', ...(mapper.names ?? [])];
    const found = names.map((n) => attributeValues(profile, n)).find((values) => values.length > 0);
    if (found) claims[key] = mapper.array ? found : found[0];
    else if (mapper.default !== undefined && mapper.default !== null) claims[key] = mapper.default;
  }
  return claims;
}

/** GoTrue's SAMLAssertion.Email: the mapped `email`, the usual e-mail attributes, or an e-mail NameID. */
export function emailOf(profile: Profile, claims: Record<string, unknown>): string {
  if (typeof claims.email === 'string' && claims.email) return claims.email;
  for (const name of EMAIL_ATTRIBUTES) {
    const value = attributeValues(profile, name)[0];
    if (value) return value;
  }
  return profile.nameIDFormat === EMAIL_FORMAT ? profile.nameID : '';
}

/**
 * What node-saml leaves to us: the (signed) assertion's Issuer must be the provider the relay state names, and the
 * Recipient of each bearer confirmation and the Destination of the response, where given, must be our ACS.
 */
export function checkAddressing(profile: Profile, acsUrl: string, idpEntityId: string): void {
  if (profile.issuer !== idpEntityId) throw samlErrors.invalidAssertion('Issuer is not the identity provider');
  const parse = (xml: string | undefined) => (xml ? new DOMParser().parseFromString(xml, 'text/xml') : undefined);
  const assertion = parse(profile.getAssertionXml?.());
  const recipients = assertion
    ? (xpath.select("//*[local-name()='SubjectConfirmationData']/@Recipient", assertion) as XmlNode[])
    : [];
  if (recipients.some((r) => r.value !== acsUrl)) throw samlErrors.invalidAssertion('Recipient is not this service');
  const response = parse(profile.getSamlResponseXml?.());
  const destination = response?.documentElement?.getAttribute('Destination');
  if (destination && destination !== acsUrl) throw samlErrors.invalidAssertion('Destination is not this service');
}
