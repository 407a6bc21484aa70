// Image transformations of stored objects: the ETag of a rendering (known before any work, so 304 costs no
// render), the disk cache, and renders through the bounded queue. Identical renders in flight share one job.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { ObjectRow } from '../object-row.js';
import type { ObjectReadService } from '../object-read-service.js';
import { type CachedImage, RenderCache } from './render-cache.js';
import { errors } from '../storage-errors.js';
import { renderErrors } from './render-errors.js';
import { RenderQueue } from './render-queue.js';
import { renderImage } from './image-renderer.js';
import { chooseFormat, type FormatChoice } from './output-format.js';
import {
  canonicalTransform,
  transformClaim,
  transformFromObject,
  transformFromQuery,
  transformationsHeader,
  type OutputLimits,
  type TransformOptions,
} from './transform-options.js';

export interface ImageTransformSettings extends OutputLimits {
  /** Where renderings are kept, and how many bytes of them at most (0: no cache). */
  cacheDir: string;
  cacheMaxBytes: number;
  /** Largest stored object that is transformed, in bytes, and largest source resolution, in pixels. */
  maxInputBytes: number;
  maxInputPixels: number;
  /** Renders at once, and renders waiting before more are refused with 503. */
  concurrency: number;
  maxWaiting: number;
}

export interface RenderRequest {
  row: ObjectRow;
  options: TransformOptions;
  /** The client's Accept header: with no format asked for, it picks WebP or AVIF. */
  accept: string | undefined;
}

interface RenderDescription {
  target: FormatChoice;
  /** The cache key: sha-256 of the object version, the options and the target format. */
  key: string;
  etag: string;
}

export interface Rendering extends CachedImage {
  etag: string;
}

async function readBounded(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > limit) throw renderErrors.sourceTooLarge(limit);
      chunks.push(chunk as Buffer);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, size);
}

export class ImageRenderService {
  private readonly cache: RenderCache;
  private readonly queue: RenderQueue;
  private readonly inFlight = new Map<string, Promise<CachedImage>>();

  constructor(
    private readonly reads: ObjectReadService,
    private readonly settings: ImageTransformSettings,
    private readonly log: (message: string, fields: Record<string, unknown>) => void = () => {},
  ) {
    this.cache = new RenderCache(settings.cacheDir, settings.cacheMaxBytes);
    this.queue = new RenderQueue(settings.concurrency, settings.maxWaiting);
  }

  optionsFromQuery(query: (name: string) => string | undefined): TransformOptions {
    return transformFromQuery(query, this.settings);
  }

  optionsFromObject(value: unknown): TransformOptions {
    return transformFromObject(value, this.settings);
  }

  /**
   * The claim a signed URL carries for POST /object/sign's `transform` (checked now, so a bad one fails at
   * signing), or undefined when none was asked for: storage-js sends it only when it has keys.
   */
  signClaim(value: unknown): Record<string, string | number> | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
    return transformClaim(this.optionsFromObject(value));
  }

  /** What Supabase reports in X-Transformations for these options. */
  transformationsHeader(options: TransformOptions): string {
    return transformationsHeader(options);
  }

  /** sha-256 of what decides the output bytes: the object version, the options and the target format. */
  private keyOf(row: ObjectRow, options: TransformOptions, target: FormatChoice): string {
    const text = JSON.stringify([row.bucket_id, row.name, row.version, canonicalTransform(options), target]);
    return createHash('sha256').update(text).digest('hex');
  }

  /** The target format and the rendering's ETag, without rendering. */
  describe(request: RenderRequest): RenderDescription {
    const target = chooseFormat(request.options.format, request.accept);
    const key = this.keyOf(request.row, request.options, target);
    return { target, key, etag: `"${key.slice(0, 40)}"` };
  }

  /** `described`: what describe() answered for this request, when the caller already asked. */
  async render(request: RenderRequest, described = this.describe(request)): Promise<Rendering> {
    const { target, key, etag } = described;
    const cached = await this.cache.get(key);
    if (cached) return { ...cached, etag };
    let job = this.inFlight.get(key);
    if (!job) {
      job = this.renderFresh(request, target);
      this.inFlight.set(key, job);
      // The rendering is answered as soon as it exists; the cache file is written behind the answer (a few ms
      // of disk that a waiting client need not wait for). Until it is written the job stays in flight, so the
      // same request meanwhile shares it instead of rendering again.
      job
        .then(
          (image) => this.writeCache(key, image),
          () => {},
        )
        .finally(() => this.inFlight.delete(key));
    }
    return { ...(await job), etag };
  }

  private async writeCache(key: string, image: CachedImage): Promise<void> {
    // A cache that cannot be written (full disk, another process's sweep) costs a render, not the request.
    await this.cache.put(key, image).catch((error: Error) => {
      this.log('image render cache write failed', { error: error.message });
    });
  }

  private async renderFresh(request: RenderRequest, target: FormatChoice): Promise<CachedImage> {
    const { row, options } = request;
    const limit = this.settings.maxInputBytes;
    if (row.metadata.size > limit) throw renderErrors.sourceTooLarge(limit);
    const image = await this.queue.run(async () => {
      // On the filesystem libvips reads the file itself, in its worker thread: no copy of the source passes
      // through the event loop (about 3 ms of CPU and its garbage per 12-megapixel photo). Versions are never
      // rewritten, so the file is the size the row says, checked above.
      const path = this.reads.localPath(row);
      if (path) {
        return renderImage(path, options, target, this.settings.maxInputPixels).catch((error: Error) => {
          throw /input file is missing/i.test(error.message) ? errors.objectNotFound() : error;
        });
      }
      const input = await readBounded(await this.reads.openBytes(row), limit);
      return renderImage(input, options, target, this.settings.maxInputPixels);
    });
    return { bytes: image.bytes, contentType: image.contentType };
  }
}
