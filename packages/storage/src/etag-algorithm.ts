// How an object's ETag is made (STORAGE_FILE_ETAG_ALGORITHM, as Supabase's storage names it for its file backend):
// - md5 (the default): the MD5 of the bytes, as S3 gives it; a resumable upload's is composed from its chunks' MD5s
//   as S3 composes a multipart upload's. Hashing costs CPU on every upload: 6 ms per 5 MB at 800 MB/s.
// - mtime: the time the object was written and its size, in hex (Supabase's format), then the version's id: no
//   hashing at all. The version makes every write's ETag its own, even two of one size in one millisecond (where
//   Supabase's would be equal), which is what conditional requests and caches need; two uploads of the same bytes
//   get different ones.
export type EtagAlgorithm = 'md5' | 'mtime';

/** The mtime ETag of version `version` (a uuid) of `size` bytes, written at `writtenAt` (ms since the epoch). */
export function mtimeEtag(writtenAt: number, size: number, version: string): string {
  return `"${writtenAt.toString(16)}-${size.toString(16)}-${version.replaceAll('-', '')}"`;
}
