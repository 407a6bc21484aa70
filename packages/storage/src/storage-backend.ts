// The byte store behind storage.objects, one interface for the filesystem and S3-compatible services.
// Keys are `<bucket_id>/<version>` (never user text): each upload writes a new version and nothing is
// overwritten in place, which is what keeps rows and bytes in step (see object-write-service.ts).
import type { Readable } from 'node:stream';
import type { ByteRange } from './range-header.js';

export interface StoredKey {
  key: string;
  modifiedMs: number;
}

export interface StorageBackend {
  readonly kind: 'fs' | 's3';
  /** Stores a complete, fsynced spool file under key. The caller removes the spool file afterwards. */
  put(key: string, file: string, info: { size: number; contentType: string }): Promise<void>;
  /** The stored bytes (or a range of them); throws the storage 404 when the key holds nothing. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  copy(from: string, to: string): Promise<void>;
  /** Where the key's bytes are on this machine's disk, if they are (filesystem): a reader may open them itself. */
  localPath?(key: string): string;
  /** Removes keys; missing keys are not an error (removal runs again after partial failures). */
  remove(keys: readonly string[]): Promise<void>;
  /** Every stored key with its last-modified time, a page at a time (the orphan sweep, tests). */
  scan(): AsyncGenerator<StoredKey[]>;
  /** For tests: every stored key. */
  keys(): Promise<string[]>;
  close(): Promise<void>;
}

const KEY = /^[a-z0-9][a-z0-9._-]{0,62}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isKey(key: string): boolean {
  return KEY.test(key);
}

/** Backends refuse anything but the keys the service makes: defence in depth against path tricks. */
export function checkKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`refusing storage key ${JSON.stringify(key)}`);
  return key;
}

export function objectKey(bucket: string, version: string): string {
  return checkKey(`${bucket}/${version}`);
}

export type StorageLog = (message: string, fields: Record<string, unknown>) => void;

/**
 * Removal after a commit (replaced, deleted or emptied objects): best effort. A failure leaves unreferenced
 * bytes, which the orphan sweep removes later (see orphan-sweep.ts); it never leaves a row without bytes.
 */
export async function removeQuietly(backend: StorageBackend, keys: string[], log: StorageLog): Promise<void> {
  if (keys.length === 0) return;
  try {
    await backend.remove(keys);
  } catch (error) {
    log('storage: could not remove bytes', {
      keys: keys.length,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

export async function allKeys(backend: Pick<StorageBackend, 'scan'>): Promise<string[]> {
  const found: string[] = [];
  for await (const page of backend.scan()) for (const entry of page) found.push(entry.key);
  return found;
}
