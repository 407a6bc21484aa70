// SSO providers as stored in auth.sso_providers and auth.sso_domains: the row (with its domains, attribute mapping
// and NameID format), the lookups by id, resource id and e-mail domain, and the checks that a domain or a resource
// id is not taken by another provider.
import type postgres from 'postgres';
import { AuthError } from './errors.js';
import { ssoErrors } from './sso-errors.js';

type Sql = postgres.Sql | postgres.TransactionSql;

export const NAME_ID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
];

export interface SsoProviderRow {
  id: string;
  saml_id: string;
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  attribute_mapping: AttributeMapping;
  name_id_format: string | null;
  resource_id: string | null;
  disabled: boolean | null;
  created_at: Date;
  updated_at: Date;
  domains: Array<{ id: string; domain: string; created_at: string; updated_at: string }>;
}

/** GoTrue's SAMLAttributeMapping: which assertion attributes become which user_metadata claims. */
export interface AttributeMapping {
  keys?: Record<string, { name?: string; names?: string[]; default?: unknown; array?: boolean }>;
}

export const PROVIDER_SELECT = `p.id, p.saml_id, p.entity_id, p.metadata_xml, p.metadata_url, p.attribute_mapping,
  p.name_id_format, p.resource_id, p.disabled, p.created_at, p.updated_at,
  coalesce((select json_agg(json_build_object('id', d.id, 'domain', d.domain, 'created_at', d.created_at,
    'updated_at', d.updated_at) order by d.domain) from auth.sso_domains d where d.sso_provider_id = p.id), '[]')
    as domains`;

const RESOURCE_PREFIX = 'resource_';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** By id, or by resource id when the path says `resource_<key>` (GoTrue's admin paths). */
export async function findProviderById(sql: Sql, id: unknown): Promise<SsoProviderRow | undefined> {
  if (typeof id === 'string' && id.startsWith(RESOURCE_PREFIX)) {
    const [row] = await sql.unsafe<SsoProviderRow[]>(
      `select ${PROVIDER_SELECT} from auth.sso_providers p where p.resource_id = $1`,
      [id.slice(RESOURCE_PREFIX.length)],
    );
    return row;
  }
  if (typeof id !== 'string' || !UUID_RE.test(id)) return undefined;
  const [row] = await sql.unsafe<SsoProviderRow[]>(
    `select ${PROVIDER_SELECT} from auth.sso_providers p where p.id = $1`,
    [id],
  );
  return row;
}

export async function findProviderByDomain(sql: Sql, domain: string): Promise<SsoProviderRow | undefined> {
  const [row] = await sql.unsafe<SsoProviderRow[]>(
    `select ${PROVIDER_SELECT} from auth.sso_providers p
     join auth.sso_domains d on d.sso_provider_id = p.id where lower(d.domain) = lower($1)`,
    [domain.trim()],
  );
  return row;
}

export async function assertResourceIdFree(sql: Sql, resourceId: string | undefined, providerId: string | null) {
  if (!resourceId) return;
  const [taken] = await sql`select 1 from auth.sso_providers
    where resource_id = ${resourceId} and id is distinct from ${providerId}::uuid`;
  if (taken) throw new AuthError(422, 'conflict', `An SSO provider with resource_id '${resourceId}' already exists`);
}

export async function assertDomainsFree(sql: Sql, domains: string[], providerId: string | null): Promise<void> {
  if (domains.length === 0) return;
  const [taken] = await sql<Array<{ domain: string; sso_provider_id: string }>>`
    select domain, sso_provider_id from auth.sso_domains
    where lower(domain) in ${sql(domains)} and sso_provider_id is distinct from ${providerId}::uuid limit 1`;
  if (taken) throw ssoErrors.domainAlreadyExists(taken.domain, taken.sso_provider_id);
}
