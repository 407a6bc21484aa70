// The load side of the storage benchmarks, run in a process of its own so the client's work does not share the
// server's event loop. Prints the seconds taken as JSON on stdout. Modes:
//   plain <url> <anonKey> <token> <bucket> <prefix> <size> <count>   one POST per object
//   tus   <url> <anonKey> <token> <bucket> <prefix> <size> <count>   tus-js-client, 6 MB chunks
//   disk  <dir> <prefix> <size> <count>                              the baseline: write and fsync each file
//   get   <baseUrl> <size> <name...>                                 GET each <baseUrl>/<name>, check its length
// Usage: node --import tsx scripts/support/upload-load-client.ts <mode> ...
import { randomBytes } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Upload } from 'tus-js-client';

const [mode, ...args] = process.argv.slice(2);
const CHUNK = 6 * 1024 * 1024;

function jpeg(bytes: number): Buffer {
  const body = randomBytes(bytes);
  body.set([0xff, 0xd8, 0xff, 0xe0]);
  return body;
}

function uploader(url: string, anonKey: string, token: string, bucket: string) {
  const headers = { apikey: anonKey, authorization: `Bearer ${token}` };
  const plain = async (name: string, body: Buffer) => {
    const res = await fetch(`${url}/storage/v1/object/${bucket}/${name}`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'image/jpeg' },
      body,
    });
    if (res.status !== 200) throw new Error(`plain upload failed: ${res.status} ${await res.text()}`);
  };
  const tus = (name: string, body: Buffer) =>
    new Promise<void>((resolve, reject) => {
      new Upload(body, {
        endpoint: `${url}/storage/v1/upload/resumable`,
        headers,
        chunkSize: CHUNK,
        retryDelays: null,
        metadata: { bucketName: bucket, objectName: name, contentType: 'image/jpeg' },
        onSuccess: () => resolve(),
        onError: reject,
      }).start();
    });
  return { plain, tus };
}

/** The baseline of an upload: the same bytes written and fsynced to a file of their own. */
async function writeAndSync(file: string, body: Buffer): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const handle = await open(file, 'w');
  try {
    await handle.write(body);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function download(url: string, size: number): Promise<void> {
  const res = await fetch(url);
  const got = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200 || got !== size) throw new Error(`GET ${url}: ${res.status}, ${got} bytes`);
}

async function timed(count: number, job: (i: number) => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await job(i);
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function main(): Promise<number> {
  if (mode === 'plain' || mode === 'tus') {
    const [url, anonKey, token, bucket, prefix, size, count] = args as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const body = jpeg(Number(size));
    const upload = uploader(url, anonKey, token, bucket)[mode];
    await (await fetch(`${url}/health`)).arrayBuffer();
    return timed(Number(count), (i) => upload(`${prefix}/${mode}-${i}.jpg`, body));
  }
  if (mode === 'disk') {
    const [dir, prefix, size, count] = args as [string, string, string, string];
    const body = jpeg(Number(size));
    return timed(Number(count), (i) => writeAndSync(join(dir, prefix, `disk-${i}.jpg`), body));
  }
  if (mode === 'get') {
    const [baseUrl, size, ...names] = args as [string, string, ...string[]];
    // A new process's first fetch sets up undici: done before the clock starts.
    await download(`${baseUrl}/${names[0]}`, Number(size));
    return timed(names.length, (i) => download(`${baseUrl}/${names[i]}`, Number(size)));
  }
  throw new Error(`unknown mode ${mode}`);
}

main().then(
  (seconds) => process.stdout.write(`${JSON.stringify({ seconds })}\n`),
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
