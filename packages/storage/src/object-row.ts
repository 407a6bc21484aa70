// The object row as the service reads it, and the shapes storage-js receives for it.
export interface ObjectMetadata {
  eTag: string;
  size: number;
  mimetype: string;
  cacheControl: string;
  lastModified: string;
  contentLength: number;
  httpStatusCode: number;
}

export interface ObjectRow {
  id: string;
  bucket_id: string;
  name: string;
  owner_id: string | null;
  version: string;
  metadata: ObjectMetadata;
  user_metadata: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  last_accessed_at: Date;
}

export const OBJECT_COLUMNS =
  'id, bucket_id, name, owner_id, version, metadata, user_metadata, created_at, updated_at, last_accessed_at';

/** GET /object/info: the fields Supabase's storage answers (storage-js camelises them into FileObjectV2). */
export function infoBody(row: ObjectRow) {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    bucket_id: row.bucket_id,
    size: row.metadata.size,
    content_type: row.metadata.mimetype,
    cache_control: row.metadata.cacheControl,
    etag: row.metadata.eTag,
    metadata: row.user_metadata ?? {},
    last_modified: row.metadata.lastModified,
    created_at: row.created_at,
  };
}
