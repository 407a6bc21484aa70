// The load side of the resumable-upload benchmark, run in a process of its own so the client's work does not
// share the server's event loop: uploads `count` objects of `size` bytes, either plainly (one POST each) or
// through TUS with tus-js-client in 6 MB chunks, and prints the seconds taken as JSON on stdout.
// Usage: node --import tsx scripts/support/upload-load-client.ts <plain|tus> <url> <anonKey> <token> <bucket> <prefix> <size> <count>
import { randomBytes } from 'node:crypto';
import { Upload } from 'tus-js-client';

const [mode, url, anonKey, token, bucket, prefix, sizeText, countText] = process.argv.slice(2);
const size = Number(sizeText);
const count = Number(countText);
const CHUNK = 6 * 1024 * 1024;

function jpeg(bytes: number): Buffer {
  const body = randomBytes(bytes);
  body.set([0xff, 0xd8, 0xff, 0xe0]);
  return body;
}

const headers = { apikey: anonKey!, authorization: `Bearer ${token}` };

async function plain(name: string, body: Buffer): Promise<void> {
  const res = await fetch(`${url}/storage/v1/object/${bucket}/${name}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'image/jpeg' },
    body,
  });
  if (res.status !== 200) throw new Error(`plain upload failed: ${res.status} ${await res.text()}`);
}

function resumable(name: string, body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    new Upload(body, {
      endpoint: `${url}/storage/v1/upload/resumable`,
      headers,
      chunkSize: CHUNK,
      retryDelays: null,
      metadata: { bucketName: bucket!, objectName: name, contentType: 'image/jpeg' },
      onSuccess: () => resolve(),
      onError: reject,
    }).start();
  });
}

async function main(): Promise<void> {
  const body = jpeg(size);
  const upload = mode === 'tus' ? resumable : plain;
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await upload(`${prefix}/${mode}-${i}.jpg`, body);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  process.stdout.write(`${JSON.stringify({ seconds })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
