#!/usr/bin/env node
// PostgreSQL's archive_command and restore_command. Plain JavaScript: Postgres runs it (as its system user) for
// every WAL segment, so it must start fast and load nothing it does not need (the S3 client only for S3).
//   archive <target> <path> <name>   store a finished segment as wal/<name> with wal/<name>.sha256 beside it;
//                                    <target> is a directory or s3://bucket/prefix (S3_* settings from the env)
//   restore <dir> <name> <path>      copy a segment the restore fetched and verified beforehand
import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function writeDurably(file, bytes) {
  const temp = `${file}.partial`;
  writeFileSync(temp, bytes);
  const fd = openSync(temp, 'r');
  fsyncSync(fd);
  closeSync(fd);
  renameSync(temp, file);
}

/** The same segment archived twice (after a crash) is success; different bytes under its name are not. */
function sameOrRefuse(existing, digest, name) {
  if (existing === undefined) return undefined;
  if (existing.trim() === digest) return 0;
  process.stderr.write(`auction-ops wal archive: ${name} already archived with different contents\n`);
  return 1;
}

function archiveToDir(target, bytes, digest, name) {
  const dir = join(target, 'wal');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  const existing =
    existsSync(file) && existsSync(`${file}.sha256`) ? readFileSync(`${file}.sha256`, 'utf8') : undefined;
  const verdict = sameOrRefuse(existing, digest, name);
  if (verdict !== undefined) return verdict;
  writeDurably(`${file}.sha256`, `${digest}\n`);
  writeDurably(file, bytes);
  return 0;
}

async function archiveToS3(target, bytes, digest, name) {
  // The settings of createS3Client in @auction-ops/storage, repeated: this file runs without TypeScript.
  const { S3Client, PutObjectCommand, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const env = process.env;
  const client = new S3Client({
    region: env.S3_REGION || 'us-east-1',
    endpoint: env.S3_ENDPOINT || undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' || env.S3_FORCE_PATH_STYLE === '1',
    credentials:
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
        : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const url = new URL(target);
  const base = url.pathname.replace(/^\/+|\/+$/g, '');
  const Key = `${base ? `${base}/` : ''}wal/${name}`;
  const Bucket = url.hostname;
  try {
    const existing = await client
      .send(new GetObjectCommand({ Bucket, Key: `${Key}.sha256` }))
      .then((answer) => answer.Body.transformToString())
      .catch((error) => {
        if (error.$metadata?.httpStatusCode === 404) return undefined;
        throw error;
      });
    const verdict = sameOrRefuse(existing, digest, name);
    if (verdict !== undefined) return verdict;
    await client.send(new PutObjectCommand({ Bucket, Key, Body: bytes }));
    await client.send(new PutObjectCommand({ Bucket, Key: `${Key}.sha256`, Body: `${digest}\n` }));
    return 0;
  } finally {
    client.destroy();
  }
}

async function archive(target, path, name) {
  const bytes = readFileSync(path);
  const digest = sha256(bytes);
  return target.startsWith('s3://')
    ? archiveToS3(target, bytes, digest, name)
    : archiveToDir(target, bytes, digest, name);
}

function restore(dir, name, path) {
  if (!existsSync(join(dir, name))) return 1; // past the end of the archive: this is how PostgreSQL learns the end
  copyFileSync(join(dir, name), path);
  return 0;
}

const [command, ...args] = process.argv.slice(2);
try {
  process.exitCode =
    command === 'archive' ? await archive(args[0], args[1], args[2]) : restore(args[0], args[1], args[2]);
} catch (error) {
  process.stderr.write(`auction-ops wal ${command}: ${error.message}\n`);
  process.exitCode = 1;
}
