// The SSO errors GoTrue answers for identity providers, their domains and metadata (its apierrors/errorcode.go), in
// the auth family's shape (errors.ts). Kept apart from errors.ts so each feature's failures read in one place.
import { AuthError } from './errors.js';

export const ssoErrors = {
  providerNotFound: (message = 'SSO Identity Provider not found') =>
    new AuthError(404, 'sso_provider_not_found', message),
  idpAlreadyExists: (entityId: string) =>
    new AuthError(
      422,
      'saml_idp_already_exists',
      `SAML Identity Provider with this EntityID (${entityId}) already exists`,
    ),
  domainAlreadyExists: (domain: string, providerId: string) =>
    new AuthError(
      400,
      'sso_domain_already_exists',
      `SSO Domain '${domain}' is already assigned to an SSO identity provider (${providerId})`,
    ),
  entityIdMismatch: (expected: string, got: string) =>
    new AuthError(
      400,
      'saml_entity_id_mismatch',
      `SAML Metadata can be updated only if the EntityID matches for the provider; expected '${expected}' but got '${got}'`,
    ),
  metadataFetchFailed: (message: string) => new AuthError(400, 'saml_metadata_fetch_failed', message),
  providerDisabled: () =>
    new AuthError(404, 'sso_provider_disabled', 'SSO Provider assigned for this domain is currently disabled'),
};
