// S3-compatible backend (AWS, MinIO, R2, s3rver in tests) over @aws-sdk/client-s3. Uploads are spooled and
// validated locally first, then sent with a known length, so a refused or cut-off upload never reaches S3.
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { allKeys, checkKey, isKey, type StorageBackend, type StoredKey } from './storage-backend.js';
import { errors } from './storage-errors.js';

export interface S3BackendOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  forcePathStyle?: boolean;
  accessKeyId?: string;
  secretAccessKey?: string;
}

/** The client for these settings (the backup target's S3 store uses the same settings). */
export function createS3Client(options: Omit<S3BackendOptions, 'bucket'>): S3Client {
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials:
      options.accessKeyId && options.secretAccessKey
        ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
        : undefined,
    // Checksums only where S3 requires them: many S3-compatible servers store aws-chunked trailers verbatim.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export function createS3Backend(options: S3BackendOptions): StorageBackend {
  const client = createS3Client(options);
  const Bucket = options.bucket;
  const isMissing = (error: unknown) =>
    error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);

  return {
    kind: 's3',
    async put(key, file, info) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: checkKey(key),
          Body: createReadStream(file),
          ContentLength: info.size,
          ContentType: info.contentType,
        }),
      );
    },
    async get(key, range) {
      try {
        const out = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: checkKey(key),
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        return out.Body as Readable;
      } catch (error) {
        if (isMissing(error)) throw errors.objectNotFound();
        throw error;
      }
    },
    async copy(from, to) {
      try {
        await client.send(
          new CopyObjectCommand({ Bucket, Key: checkKey(to), CopySource: `${Bucket}/${checkKey(from)}` }),
        );
      } catch (error) {
        if (isMissing(error)) throw errors.objectNotFound();
        throw error;
      }
    },
    async remove(keys) {
      for (let i = 0; i < keys.length; i += 1000) {
        const batch = keys.slice(i, i + 1000).map((key) => ({ Key: checkKey(key) }));
        if (batch.length)
          await client.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch, Quiet: true } }));
      }
    },
    async *scan() {
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket, ContinuationToken: token }));
        const entries: StoredKey[] = [];
        // The S3 bucket may be shared: only keys of our shape are ours to consider.
        for (const item of page.Contents ?? []) {
          if (item.Key && isKey(item.Key))
            entries.push({ key: item.Key, modifiedMs: item.LastModified?.getTime() ?? Date.now() });
        }
        if (entries.length) yield entries;
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    },
    keys() {
      return allKeys(this);
    },
    async close() {
      client.destroy();
    },
  };
}
