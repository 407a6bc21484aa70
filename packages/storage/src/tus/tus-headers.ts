// The TUS 1.0 request headers this server reads: Upload-Metadata (comma-separated `key base64value` pairs),
// Upload-Length and Upload-Offset (non-negative integers), and the protocol version a client speaks.
import { errors, StorageError } from '../storage-errors.js';

export const TUS_VERSION = '1.0.0';

/** Upload-Metadata as a map of decoded values; a key without a value maps to ''. */
export function parseUploadMetadata(header: string | undefined): Map<string, string> {
  const found = new Map<string, string>();
  if (!header) return found;
  for (const pair of header.split(',')) {
    const [key, value, ...rest] = pair.trim().split(' ');
    if (!key || rest.length > 0 || found.has(key)) throw errors.invalidRequest('Upload-Metadata is malformed');
    if (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
      throw errors.invalidRequest(`Upload-Metadata ${key} is not base64`);
    }
    found.set(key, value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8'));
  }
  return found;
}

/** A TUS length or offset header: digits only, within the safe integer range. */
export function parseTusInteger(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d{1,15}$/.test(value))
    throw errors.invalidRequest(`${name} must be a non-negative integer`);
  return Number(value);
}

/** Every request but OPTIONS names the protocol version; tus answers any other with 412. */
export function checkTusResumable(value: string | undefined): void {
  if (value !== TUS_VERSION) throw new StorageError(412, 'InvalidRequest', `Tus-Resumable must be ${TUS_VERSION}`);
}
