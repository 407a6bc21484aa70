// The MD5 of bytes as they are written to a file, computed on a thread of its own that reads them back from the
// file (the page cache). ETags need the MD5 of every byte; hashed on the event loop, a 5 MB upload spent 6-7 ms of
// its ~25 ms there, and the body was read off the socket no faster than it was hashed. Here the event loop only
// says how far the file is written; the thread hashes behind the writes, and finishes the last batch while the
// file is fsynced. One thread serves every upload of the process, started at the first.
import { Worker } from 'node:worker_threads';

// Plain JavaScript: a new thread has no TypeScript loader. Per upload: an open descriptor, the hash and how far
// it has read; its first message names the file and start offset. Messages arrive in order; a read error is
// answered at the end, and the rest ignored until then.
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, readSync, closeSync } = require('node:fs');
const { createHash } = require('node:crypto');
const buffer = Buffer.allocUnsafe(1024 * 1024);
const files = new Map();
const close = (file) => { if (file.fd !== undefined) closeSync(file.fd); };
parentPort.on('message', ({ id, path, from, upTo, end, abort }) => {
  let file = files.get(id);
  if (!file) files.set(id, (file = { path, position: from, hash: createHash('md5'), fd: undefined, error: undefined }));
  if (abort) { files.delete(id); try { close(file); } catch {} return; }
  if (!file.error) {
    try {
      file.fd ??= openSync(file.path, 'r');
      while (file.position < upTo) {
        const n = readSync(file.fd, buffer, 0, Math.min(buffer.length, upTo - file.position), file.position);
        if (n === 0) throw new Error('the file is shorter than was written to it');
        file.hash.update(buffer.subarray(0, n));
        file.position += n;
      }
    } catch (error) { file.error = String(error && error.message || error); }
  }
  if (!end) return;
  files.delete(id);
  try { close(file); } catch {}
  parentPort.postMessage(file.error ? { id, error: file.error } : { id, md5: file.hash.digest('hex') });
});
`;

interface Pending {
  resolve(md5: string): void;
  reject(error: Error): void;
}

let thread: { worker: Worker; pending: Map<number, Pending>; open: Set<number> } | undefined;
let nextId = 1;

/** The hashing thread, started on first use; referenced only while an upload is being hashed. */
function hashingThread() {
  if (thread) return thread;
  const worker = new Worker(THREAD_SOURCE, { eval: true, execArgv: [] });
  const current = { worker, pending: new Map<number, Pending>(), open: new Set<number>() };
  worker.unref();
  worker.on('message', ({ id, md5, error }: { id: number; md5?: string; error?: string }) => {
    const waiting = current.pending.get(id);
    current.pending.delete(id);
    if (md5 !== undefined) waiting?.resolve(md5);
    else waiting?.reject(new Error(`hashing the upload failed: ${error}`));
  });
  // A thread that died takes its uploads' hashes with it: they fail, and the next upload starts a new thread.
  const lost = (reason: unknown) => {
    if (thread === current) thread = undefined;
    for (const waiting of current.pending.values()) waiting.reject(new Error(`the hashing thread stopped: ${reason}`));
    current.pending.clear();
    current.open.clear();
  };
  worker.on('error', lost);
  worker.on('exit', (code) => lost(`exit ${code}`));
  thread = current;
  return current;
}

/** The MD5 of `path` from byte `from` on, as far as `written` has been told the bytes are in the file. */
export class FileMd5 {
  private readonly id = nextId++;
  private readonly thread = hashingThread();
  private done = false;
  private introduced = false;

  constructor(
    private readonly path: string,
    private readonly from: number,
  ) {
    if (this.thread.open.size === 0) this.thread.worker.ref();
    this.thread.open.add(this.id);
  }

  /** Everything before byte `upTo` is written: the thread may hash it. */
  written(upTo: number): void {
    if (!this.done) this.post({ upTo });
  }

  /** The hex digest of the bytes from `from` to `upTo` (what was written). */
  digest(upTo: number): Promise<string> {
    if (this.done) return Promise.reject(new Error('this hash is finished (digested or aborted)'));
    const live = this.live();
    const answer = new Promise<string>((resolve, reject) => {
      if (!live) return reject(new Error('the hashing thread stopped'));
      this.thread.pending.set(this.id, { resolve, reject });
      this.post({ upTo, end: true });
    });
    this.close();
    return answer;
  }

  /** Drops the hash (the upload failed). */
  abort(): void {
    if (this.done) return;
    this.post({ abort: true });
    this.close();
  }

  private live(): boolean {
    return thread === this.thread && this.thread.open.has(this.id);
  }

  /** The thread needs the path and start offset only with an upload's first message. */
  private post(message: { upTo?: number; end?: boolean; abort?: boolean }): void {
    if (!this.live()) return;
    if (this.introduced) this.thread.worker.postMessage({ id: this.id, ...message });
    else this.thread.worker.postMessage({ id: this.id, path: this.path, from: this.from, ...message });
    this.introduced = true;
  }

  private close(): void {
    this.done = true;
    this.thread.open.delete(this.id);
    if (this.thread.open.size === 0) this.thread.worker.unref();
  }
}
