// A backend of either kind for tests: the filesystem under `dir`, or S3 against a fake S3 server on loopback.
import { createFsBackend } from '../fs-backend.js';
import { createS3Backend } from '../s3-backend.js';
import type { StorageBackend } from '../storage-backend.js';
import { startFakeS3 } from './fake-s3.js';

export async function startTestBackend(
  kind: 'fs' | 's3',
  dir: string,
): Promise<{ backend: StorageBackend; close(): Promise<void> }> {
  if (kind === 'fs') {
    const backend = createFsBackend(dir);
    return { backend, close: () => backend.close() };
  }
  const s3 = await startFakeS3();
  const backend = createS3Backend({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  return {
    backend,
    async close() {
      await backend.close();
      await s3.close();
    },
  };
}
