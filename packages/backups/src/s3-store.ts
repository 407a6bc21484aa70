// A backup target in S3-compatible storage (`s3://bucket/prefix`), with the storage settings' endpoint, region and
// credentials. Files are spooled locally first: a database file changes while it is read, and S3 needs the length
// and the bytes whose checksum the manifest records.
import { mkdtempSync, rmSync, statSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { BackupStore, StoredEntry } from './backup-store.js';
import { copyWithChecksum, streamToFile } from './checksum.js';
import type { S3BackendOptions } from '@auction-ops/storage';

type S3Settings = Omit<S3BackendOptions, 'bucket'>;

/** The storage package's variables (S3_*), which apply to an s3:// target too. */
export function s3SettingsFromEnv(env: Record<string, string | undefined> = process.env): S3Settings {
  return {
    endpoint: env.S3_ENDPOINT || undefined,
    region: env.S3_REGION || 'us-east-1',
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' || env.S3_FORCE_PATH_STYLE === '1',
    accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
  };
}

export function createS3Store(spec: string, settings: S3Settings): BackupStore {
  const url = new URL(spec);
  const Bucket = url.hostname;
  const base = url.pathname.replace(/^\/+|\/+$/g, '');
  const keyOf = (key: string) => (base ? `${base}/${key}` : key);
  // The AWS SDK (about 10 MB of a process) is loaded at the store's first request, so a server that only names
  // the target (the console, the archive settings) does not carry it.
  let loaded: Promise<{ sdk: typeof import('@aws-sdk/client-s3'); client: S3Client }> | undefined;
  const s3 = () =>
    (loaded ??= Promise.all([import('@aws-sdk/client-s3'), import('@auction-ops/storage/s3')]).then(
      ([sdk, storage]) => ({ sdk, client: storage.createS3Client(settings) }),
    ));
  const spool = () => mkdtempSync(join(tmpdir(), 'auction-ops-backup-spool-'));
  const upload = async (key: string, file: string) => {
    const { sdk, client } = await s3();
    await client.send(
      new sdk.PutObjectCommand({
        Bucket,
        Key: keyOf(key),
        Body: createReadStream(file),
        ContentLength: statSync(file).size,
      }),
    );
  };
  const viaSpool = async (key: string, write: (file: string) => Promise<{ size: number; sha256: string }>) => {
    const dir = spool();
    try {
      const copied = await write(join(dir, 'file'));
      await upload(key, join(dir, 'file'));
      return copied;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const get = async (key: string) => {
    const { sdk, client } = await s3();
    try {
      return (await client.send(new sdk.GetObjectCommand({ Bucket, Key: keyOf(key) }))).Body as Readable;
    } catch (error) {
      if (error instanceof sdk.S3ServiceException && error.$metadata.httpStatusCode === 404) return undefined;
      throw error;
    }
  };
  const entries = async (prefix: string) => {
    const { sdk, client } = await s3();
    const keys: StoredEntry[] = [];
    let ContinuationToken: string | undefined;
    do {
      const page = await client.send(
        new sdk.ListObjectsV2Command({ Bucket, Prefix: `${keyOf(prefix)}/`, ContinuationToken }),
      );
      for (const item of page.Contents ?? [])
        if (item.Key)
          keys.push({ key: item.Key.slice(keyOf(prefix).length + 1), modifiedMs: item.LastModified?.getTime() ?? 0 });
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return keys;
  };
  const list = async (prefix: string) => (await entries(prefix)).map((entry) => entry.key);
  return {
    spec,
    putFile: (key, from) => viaSpool(key, (file) => copyWithChecksum(from, file)),
    putStream: (key, from) => viaSpool(key, (file) => streamToFile(from, file)),
    putText: async (key, text) => {
      const { sdk, client } = await s3();
      await client.send(new sdk.PutObjectCommand({ Bucket, Key: keyOf(key), Body: text }));
    },
    async getFile(key, to) {
      const body = await get(key);
      return body && streamToFile(body, to);
    },
    async getText(key) {
      const body = await get(key);
      if (!body) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    list,
    entries,
    async removePrefix(prefix) {
      const keys = await list(prefix);
      const { sdk, client } = await s3();
      for (let i = 0; i < keys.length; i += 1000) {
        const Objects = keys.slice(i, i + 1000).map((key) => ({ Key: keyOf(`${prefix}/${key}`) }));
        await client.send(new sdk.DeleteObjectsCommand({ Bucket, Delete: { Objects } }));
      }
    },
    close: () => {
      void loaded?.then(
        ({ client }) => client.destroy(),
        () => {},
      );
    },
  };
}
