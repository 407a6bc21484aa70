// Where an identity provider's SAML metadata comes from: the XML an admin gives inline, or the XML at its HTTPS URL,
// fetched with a time limit, without redirects and refused past 1 MB.
import { type IdpMetadata, parseIdpMetadata } from './saml-metadata.js';
import { ssoErrors } from './sso-errors.js';
import type { ValidParams } from './sso-provider-params.js';

const MAX_METADATA_BYTES = 1024 * 1024;
const METADATA_TIMEOUT_MS = 10_000;

/** The metadata given inline, or fetched from its HTTPS URL (bounded in time and size). */
export async function loadMetadata(params: ValidParams): Promise<{ xml: string; metadata: IdpMetadata } | undefined> {
  let xml = params.metadataXml;
  if (!xml && params.metadataUrl) xml = await fetchMetadata(params.metadataUrl);
  if (!xml) return undefined;
  return { xml, metadata: parseIdpMetadata(xml) };
}

export async function fetchMetadata(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/xml;charset=UTF-8' },
      signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    throw ssoErrors.metadataFetchFailed(`Error fetching SAML Metadata from URL '${url}': ${(error as Error).message}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw ssoErrors.metadataFetchFailed(`HTTP ${res.status} error fetching SAML Metadata from URL '${url}'`);
  }
  return readBounded(res);
}

/** The body as text, refused (and the transfer cut) past MAX_METADATA_BYTES. */
async function readBounded(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_METADATA_BYTES) {
      await reader.cancel();
      throw ssoErrors.metadataFetchFailed('SAML Metadata is larger than 1 MB');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
