// The size limit of a write into a bucket: the bucket's own limit, capped by the server's STORAGE_FILE_SIZE_LIMIT.

export function sizeLimitOf(bucket: { file_size_limit: number | null }, serverLimit: number): number {
  return Math.min(bucket.file_size_limit ?? serverLimit, serverLimit);
}
