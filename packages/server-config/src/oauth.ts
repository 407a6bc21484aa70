// OAuth / OpenID Connect providers (docs/auth.md, "OAuth and OpenID"): a provider is on when its client id is
// set. _URL is the issuer (discovery at {_URL}/.well-known/openid-configuration): needed for keycloak (the realm's
// URL) and an azure tenant; google, apple and azure's common endpoint have a default.
import * as v from 'valibot';
import { nonEmpty, url } from './fields.js';

const provider = (name: string) => ({
  [`AUTH_EXTERNAL_${name}_CLIENT_ID`]: v.optional(nonEmpty),
  [`AUTH_EXTERNAL_${name}_SECRET`]: v.optional(nonEmpty),
  [`AUTH_EXTERNAL_${name}_URL`]: v.optional(url),
});

export const oauthSettings = {
  ...provider('GOOGLE'),
  ...provider('AZURE'),
  ...provider('APPLE'),
  ...provider('KEYCLOAK'),
} as Record<
  `AUTH_EXTERNAL_${'GOOGLE' | 'AZURE' | 'APPLE' | 'KEYCLOAK'}_${'CLIENT_ID' | 'SECRET' | 'URL'}`,
  v.OptionalSchema<typeof nonEmpty, undefined>
>;
