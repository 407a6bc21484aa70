// The bytes of a backup target behind one small interface: keys like `backups/<id>/manifest.json` or
// `wal/<segment>`, stored in a directory or in S3-compatible storage (see dir-store.ts, s3-store.ts).
import type { Readable } from 'node:stream';
import type { CopiedFile } from './checksum.js';

export interface StoredEntry {
  key: string;
  modifiedMs: number;
}

export interface BackupStore {
  /** The target as the operator named it (messages, --json output). */
  readonly spec: string;
  /** Stores a local file (which may be changing) and returns the size and SHA-256 of the bytes stored. */
  putFile(key: string, from: string): Promise<CopiedFile>;
  putStream(key: string, from: Readable): Promise<CopiedFile>;
  putText(key: string, text: string): Promise<void>;
  /** Fetches key into a local file with the SHA-256 of what arrived; undefined when there is no such key. */
  getFile(key: string, to: string): Promise<CopiedFile | undefined>;
  getText(key: string): Promise<string | undefined>;
  /** Every key below `prefix/`, relative to it. */
  list(prefix: string): Promise<string[]>;
  /** The same with when each was stored (pruning keeps what is newer than the oldest kept backup). */
  entries(prefix: string): Promise<StoredEntry[]>;
  removePrefix(prefix: string): Promise<void>;
  close(): void;
}
