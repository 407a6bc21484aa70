// node-saml, xmldom and xpath, loaded with require and typed here by the parts this package uses. Their own
// declarations reference TypeScript's DOM library, which would change the fetch, Headers and Buffer types of the
// whole program (one tsconfig); loaded this way, the program stays on Node's types.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export interface XmlNode {
  readonly textContent: string | null;
  readonly value?: string;
  getAttribute(name: string): string | null;
}
export interface XmlDocument {
  readonly documentElement: XmlNode | null;
}
type XmlHandler = (message: string) => void;
interface DomParserClass {
  new (options?: {
    errorHandler?: { warning?: XmlHandler; error?: XmlHandler; fatalError?: XmlHandler };
  }): {
    parseFromString(source: string, mimeType: string): XmlDocument;
  };
}

export const { DOMParser } = require('@xmldom/xmldom') as { DOMParser: DomParserClass };
export const xpath = require('xpath') as {
  select(expression: string, node: XmlNode | XmlDocument): XmlNode[] | string | number | boolean;
};

export interface CacheProvider {
  saveAsync(key: string, value: string): Promise<{ value: string; createdAt: number } | null>;
  getAsync(key: string): Promise<string | null>;
  removeAsync(key: string | null): Promise<string | null>;
}

export interface SamlProfile {
  issuer: string;
  nameID: string;
  nameIDFormat: string;
  attributes?: Record<string, unknown>;
  getAssertionXml?(): string;
  getSamlResponseXml?(): string;
}

interface SamlConfig {
  issuer: string;
  callbackUrl: string;
  idpCert: string | string[];
  entryPoint?: string;
  idpIssuer?: string;
  audience?: string | false;
  privateKey?: string;
  decryptionPvk?: string;
  signatureAlgorithm?: 'sha1' | 'sha256' | 'sha512';
  identifierFormat?: string | null;
  disableRequestedAuthnContext?: boolean;
  wantAuthnResponseSigned?: boolean;
  wantAssertionsSigned?: boolean;
  acceptedClockSkewMs?: number;
  generateUniqueId?: () => string;
  validateInResponseTo?: 'never' | 'ifPresent' | 'always';
  requestIdExpirationPeriodMs?: number;
  cacheProvider?: CacheProvider;
}

interface SamlClass {
  new (
    options: SamlConfig,
  ): {
    getAuthorizeUrlAsync(relayState: string, host: string | undefined, options: object): Promise<string>;
    validatePostResponseAsync(container: {
      SAMLResponse: string;
    }): Promise<{ profile: SamlProfile | null; loggedOut: boolean }>;
    generateServiceProviderMetadata(decryptionCert: string | null, publicCerts?: string | string[] | null): string;
  };
}

export const { SAML } = require('@node-saml/node-saml') as { SAML: SamlClass };
