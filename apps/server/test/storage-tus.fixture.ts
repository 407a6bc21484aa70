// Shared pieces of the resumable-upload tests: tus-js-client uploads as promises, a fingerprint store two
// clients can share (as a phone's storage survives an app restart), and raw TUS requests for unhappy paths.
import type { PreviousUpload, Upload, UploadOptions, UrlStorage } from 'tus-js-client';

export const CHUNK = 6 * 1024 * 1024;

/** tus-js-client's URL storage in memory: uploads found by fingerprint, shared by the clients given it. */
export class MemoryUrlStorage implements UrlStorage {
  private readonly entries = new Map<string, PreviousUpload & { urlStorageKey: string }>();
  async findAllUploads() {
    return [...this.entries.values()];
  }
  async findUploadsByFingerprint(fingerprint: string) {
    return [...this.entries.values()].filter((e) => e.urlStorageKey.startsWith(`${fingerprint}::`));
  }
  async removeUpload(key: string) {
    this.entries.delete(key);
  }
  async addUpload(fingerprint: string, upload: PreviousUpload) {
    const key = `${fingerprint}::${this.entries.size}`;
    this.entries.set(key, { ...upload, urlStorageKey: key });
    return key;
  }
}

export interface TusTarget {
  url: string;
  anonKey: string;
  token: string;
}

/** The options of a Supabase-style tus-js-client upload (docs: storage resumable uploads). */
export function tusOptions(target: TusTarget, metadata: Record<string, string>, extra: UploadOptions = {}) {
  return {
    endpoint: `${target.url}/storage/v1/upload/resumable`,
    headers: { authorization: `Bearer ${target.token}`, apikey: target.anonKey },
    metadata,
    chunkSize: CHUNK,
    retryDelays: null,
    ...extra,
  } satisfies UploadOptions;
}

/** Runs an upload to its end: resolves with its URL, rejects with tus-js-client's error. */
export function runUpload(upload: Upload): Promise<string> {
  return new Promise((resolve, reject) => {
    const { onSuccess, onError } = upload.options;
    upload.options.onSuccess = (payload) => {
      onSuccess?.(payload);
      resolve(upload.url!);
    };
    upload.options.onError = (error) => {
      onError?.(error);
      reject(error);
    };
    upload.start();
  });
}

/** The HTTP status tus-js-client saw in a failed upload. */
export function statusOfTusError(error: unknown): number | undefined {
  return (error as { originalResponse?: { getStatus(): number } }).originalResponse?.getStatus();
}

/** Raw TUS requests (for what tus-js-client would never send). */
export function tusRequest(target: TusTarget, path: string, init: RequestInit & { headers?: Record<string, string> }) {
  return fetch(path.startsWith('http') ? path : `${target.url}/storage/v1/upload/resumable${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${target.token}`,
      apikey: target.anonKey,
      'Tus-Resumable': '1.0.0',
      ...init.headers,
    },
  });
}

export function encodeMetadata(metadata: Record<string, string>): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');
}

/** Creates an upload with a raw POST; answers its URL. */
export async function createUpload(target: TusTarget, length: number, metadata: Record<string, string>) {
  const res = await tusRequest(target, '', {
    method: 'POST',
    headers: { 'Upload-Length': String(length), 'Upload-Metadata': encodeMetadata(metadata) },
  });
  if (res.status !== 201) throw new Error(`creation answered ${res.status}: ${await res.text()}`);
  return res.headers.get('location')!;
}

export function patchChunk(target: TusTarget, url: string, offset: number, bytes: Buffer) {
  return tusRequest(target, url, {
    method: 'PATCH',
    headers: { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body: bytes,
  });
}
