// Where a resumable upload's bytes are kept, apart from the protocol (tus-upload-service.ts) that decides what a
// request may do: in place in one staging file (tus-staged-bytes.ts, the filesystem backend) or as one backend
// part per chunk (tus-part-bytes.ts, S3 and any other backend). Both end an upload the same way, in the
// transaction that commits its object (endUploadIn), so the object is committed exactly once.
import type postgres from 'postgres';
import type { Caller } from '../caller-transaction.js';
import type { ObjectWriteService } from '../object-write-service.js';
import { errors } from '../storage-errors.js';
import type { TusUploadRow, TusUploadStore } from './tus-upload-store.js';

export interface TusState {
  id: string;
  offset: number;
  length: number;
  expiresAt: Date;
}

export function stateOf(row: TusUploadRow): TusState {
  return { id: row.id, offset: row.upload_offset, length: row.upload_length, expiresAt: row.expires_at };
}

/** What an ended upload leaves to remove. */
export type EndedUpload = Pick<TusUploadRow, 'id' | 'bucket_id' | 'parts' | 'staged'>;

/** One way of keeping an upload's bytes, from its creation to its removal. */
export interface TusUploadBytes {
  /** Recorded on the upload's row: whether its bytes are one staging file (otherwise backend parts). */
  readonly staged: boolean;
  /** Readies a new upload's bytes, before its row is recorded. */
  open(id: string): Promise<void>;
  /** Undoes open when the row could not be recorded. */
  discard(id: string): Promise<void>;
  /** Commits an upload created with length 0: clients send no PATCH for it. */
  completeEmpty(caller: Caller, row: TusUploadRow): Promise<void>;
  /** Removes an ended upload's bytes of this kind. */
  remove(row: EndedUpload): Promise<void>;
  /** Removes bytes of this kind that no upload names any more. */
  sweep(): Promise<void>;
}

/** What the ways of keeping bytes take from the protocol. */
export interface TusBytesContext {
  store: TusUploadStore;
  writes: ObjectWriteService;
  /** Ends an upload whose completion was refused for good (the protocol's rule; it removes the bytes). */
  endOnRefusal(row: TusUploadRow, error: unknown): Promise<void>;
}

/**
 * Ends the upload inside the transaction that commits its object, only if it still stands at `offset` (and, staged,
 * `writer` still holds its claim): a raced chunk or completion loses with 409 and the object is not committed.
 */
export async function endUploadIn(
  tx: postgres.ReservedSql,
  row: TusUploadRow,
  offset: number,
  writer: string | null,
): Promise<void> {
  const [ended] = await tx<{ done: boolean }[]>`
    select storage.tus_complete(${row.id}, ${row.owner_key}, ${offset}, ${writer}::uuid) as done`;
  if (!ended?.done) throw errors.offsetMismatch(undefined);
}
