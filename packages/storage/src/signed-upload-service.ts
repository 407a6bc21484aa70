// Signed upload URLs (storage-js createSignedUploadUrl / uploadToSignedUrl). Creating one needs the right to
// write that path now: the row write is tried under the caller's role in a transaction that is always rolled
// back (RLS 403, duplicate 409, unknown bucket 404 surface at creation, as in Supabase). The token names one
// path and the creator ({role, sub}); the upload then runs as that creator, so RLS is checked again, the
// object is owned by them, and the usual content checks and size limit apply.
import { callerUserId, type Caller } from './caller-transaction.js';
import { expiresInOf } from './object-read-service.js';
import { checkObjectName, type ObjectRef } from './object-path.js';
import type { ObjectWriteService } from './object-write-service.js';
import type { UploadGrant, UploadUrlSigner } from './signed-url-token.js';
import { errors } from './storage-errors.js';
import type { UploadBody } from './upload-body.js';

/** Supabase's signed upload URLs last two hours. */
const SIGNED_UPLOAD_SECONDS = 2 * 3600;

export class SignedUploadService {
  constructor(
    private readonly writes: ObjectWriteService,
    private readonly signer: UploadUrlSigner,
  ) {}

  async create(
    caller: Caller,
    ref: ObjectRef,
    upsert: boolean,
    expiresIn?: unknown,
  ): Promise<{ url: string; token: string }> {
    checkObjectName(ref.name);
    if (caller.role === 'anon')
      throw errors.unauthorized('Signed upload URLs need a signed-in user or the service role');
    const seconds = expiresIn === undefined || expiresIn === null ? SIGNED_UPLOAD_SECONDS : expiresInOf(expiresIn);
    const mode = upsert ? 'upsert' : 'create';
    await this.writes.checkWritable(caller, ref, mode);
    const role = caller.role as UploadGrant['role'];
    const grant: UploadGrant = { url: `${ref.bucket}/${ref.name}`, role, sub: callerUserId(caller), upsert };
    const token = this.signer.sign(grant, seconds);
    const path = [ref.bucket, ...ref.name.split('/')].map(encodeURIComponent).join('/');
    return { url: `/object/upload/sign/${path}?token=${token}`, token };
  }

  /** PUT /object/upload/sign/{bucket}/{name}?token=: the token's path only, as its creator. */
  async upload(ref: ObjectRef, token: string, body: UploadBody): Promise<{ Key: string; Id: string }> {
    let grant: UploadGrant;
    try {
      grant = this.signer.verify(token);
      if (grant.url !== `${ref.bucket}/${ref.name}`) throw errors.invalidRequest('Invalid signature');
    } catch (error) {
      body.source.resume();
      throw error;
    }
    const claims: Record<string, unknown> = { role: grant.role };
    if (grant.sub) claims.sub = grant.sub;
    return this.writes.upload({ role: grant.role, claims }, ref, body, grant.upsert ? 'upsert' : 'create');
  }
}
