// Image transformations (/storage/v1/render/image): source and output limits, the disk cache of renderings,
// and how many renders run or wait at once (docs/storage.md "Image transformations").
import * as v from 'valibot';
import { positiveInt, wholeNumber } from './fields.js';

export const imageTransformSettings = {
  STORAGE_TRANSFORM_MAX_DIMENSION: v.optional(positiveInt, '2500'),
  STORAGE_TRANSFORM_MAX_INPUT_BYTES: v.optional(positiveInt, String(25 * 1024 * 1024)),
  // 12-megapixel phone photos pass; a 50000 x 50000 "decompression bomb" of a few kilobytes does not.
  STORAGE_TRANSFORM_MAX_INPUT_PIXELS: v.optional(positiveInt, String(50_000_000)),
  STORAGE_TRANSFORM_CACHE_BYTES: v.optional(wholeNumber, String(512 * 1024 * 1024)),
  // 0: one render per CPU core. Each render also uses libvips threads, so more rarely helps.
  STORAGE_TRANSFORM_CONCURRENCY: v.optional(wholeNumber, '0'),
  STORAGE_TRANSFORM_QUEUE: v.optional(wholeNumber, '64'),
};
