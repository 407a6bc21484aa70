// The bodies of GoTrue's admin/sso/providers requests, checked as GoTrue checks them: type, metadata (inline XML or
// an HTTPS URL, not both), e-mail domains, attribute mapping, NameID format, resource id and the disabled flag.
import { authErrors } from './errors.js';
import { type AttributeMapping, NAME_ID_FORMATS } from './sso-provider-store.js';

export interface ProviderParams {
  type?: unknown;
  metadata_url?: unknown;
  metadata_xml?: unknown;
  domains?: unknown;
  attribute_mapping?: unknown;
  name_id_format?: unknown;
  resource_id?: unknown;
  disabled?: unknown;
}

export interface ValidParams {
  metadataUrl?: string;
  metadataXml?: string;
  domains?: string[];
  attributeMapping?: AttributeMapping;
  nameIdFormat?: string;
  /** '' clears it. */
  resourceId?: string;
  disabled?: boolean;
}

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw authErrors.validation(`${name} must be a string`);
  return value;
}

/** GoTrue's CreateSSOProviderParams.validate, plus the shapes its JSON decoder would refuse. */
export function validateProviderParams(params: ProviderParams, forUpdate: boolean): ValidParams {
  if (!forUpdate && params.type !== 'saml') throw authErrors.validation("Only 'saml' supported for SSO provider type");
  const metadataUrl = optionalString(params.metadata_url, 'metadata_url');
  const metadataXml = optionalString(params.metadata_xml, 'metadata_xml');
  if (metadataUrl && metadataXml)
    throw authErrors.validation('Only one of metadata_xml or metadata_url needs to be set');
  if (!forUpdate && !metadataUrl && !metadataXml)
    throw authErrors.validation('Either metadata_xml or metadata_url must be set');
  if (metadataUrl) {
    let url: URL;
    try {
      url = new URL(metadataUrl);
    } catch {
      throw authErrors.validation('metadata_url is not a valid URL');
    }
    if (url.protocol !== 'https:') throw authErrors.validation('metadata_url is not a HTTPS URL');
  }
  const nameIdFormat = optionalString(params.name_id_format, 'name_id_format');
  if (nameIdFormat && !NAME_ID_FORMATS.includes(nameIdFormat))
    throw authErrors.validation(`name_id_format must be unspecified or one of ${NAME_ID_FORMATS.join(', ')}`);
  let domains: string[] | undefined;
  if (params.domains !== undefined && params.domains !== null) {
    if (!Array.isArray(params.domains) || params.domains.some((d) => typeof d !== 'string'))
      throw authErrors.validation('domains must be an array of strings');
    domains = [...new Set((params.domains as string[]).map((d) => d.trim().toLowerCase()))];
    const bad = domains.find((d) => !DOMAIN_RE.test(d));
    if (bad !== undefined) throw authErrors.validation(`domain '${bad}' is not a valid domain name`);
  }
  let attributeMapping: AttributeMapping | undefined;
  if (params.attribute_mapping !== undefined && params.attribute_mapping !== null) {
    const mapping = params.attribute_mapping as AttributeMapping;
    const keys = mapping.keys;
    if (
      typeof mapping !== 'object' ||
      Array.isArray(mapping) ||
      (keys !== undefined && (typeof keys !== 'object' || keys === null || Array.isArray(keys)))
    )
      throw authErrors.validation('attribute_mapping must be an object of the form {"keys": {...}}');
    attributeMapping = keys ? { keys } : {};
  }
  if (params.resource_id !== undefined && params.resource_id !== null && typeof params.resource_id !== 'string')
    throw authErrors.validation('resource_id must be a string');
  if (params.disabled !== undefined && params.disabled !== null && typeof params.disabled !== 'boolean')
    throw authErrors.validation('disabled must be a boolean');
  const resourceId = typeof params.resource_id === 'string' ? params.resource_id : undefined;
  const disabled = typeof params.disabled === 'boolean' ? params.disabled : undefined;
  return { metadataUrl, metadataXml, domains, attributeMapping, nameIdFormat, resourceId, disabled };
}
