// The transformation a client asks for (storage-js's TransformOptions: width, height, resize, quality, format),
// read from a query string or a signed token's claim and checked against the configured output limits.
import { renderErrors } from './render-errors.js';

export type ResizeMode = 'cover' | 'contain' | 'fill';
/** origin keeps the source format; unset lets the Accept header choose (webp or avif), as Supabase does. */
export type RequestedFormat = 'origin' | 'webp' | 'avif' | undefined;

export interface TransformOptions {
  readonly width: number | undefined;
  readonly height: number | undefined;
  readonly resize: ResizeMode;
  /** Unset: DEFAULT_QUALITY (kept apart so X-Transformations lists only what was asked, as Supabase's does). */
  readonly quality: number | undefined;
  readonly format: RequestedFormat;
}

export interface OutputLimits {
  /** Largest width or height a client may ask for. */
  maxDimension: number;
}

const RESIZE_MODES: readonly string[] = ['cover', 'contain', 'fill'];
const FORMATS: readonly string[] = ['origin', 'webp', 'avif'];
// Supabase's defaults and bounds: quality 20-100, 80 when unset; cover when no mode is given.
export const DEFAULT_QUALITY = 80;
const MIN_QUALITY = 20;

type Source = (name: string) => unknown;

function integer(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw renderErrors.invalidParameter(`${name} must be an integer between ${min} and ${max}`);
  return n;
}

function choice<T extends string>(value: unknown, name: string, allowed: readonly string[]): T | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !allowed.includes(value))
    throw renderErrors.invalidParameter(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function parseWith(get: Source, limits: OutputLimits): TransformOptions {
  // 0 means "keep the aspect ratio" in storage-js and Supabase, the same as leaving it out.
  const dimension = (name: string) => integer(get(name), name, 0, limits.maxDimension) || undefined;
  return {
    width: dimension('width'),
    height: dimension('height'),
    resize: choice<ResizeMode>(get('resize'), 'resize', RESIZE_MODES) ?? 'cover',
    quality: integer(get('quality'), 'quality', MIN_QUALITY, 100),
    format: choice<Exclude<RequestedFormat, undefined>>(get('format'), 'format', FORMATS),
  };
}

/** From the query string of a render URL (storage-js's getPublicUrl and download). */
export function transformFromQuery(query: (name: string) => string | undefined, limits: OutputLimits) {
  return parseWith(query, limits);
}

/** From a JSON object: the `transform` of POST /object/sign, or the claim of a signed render token. */
export function transformFromObject(value: unknown, limits: OutputLimits): TransformOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw renderErrors.invalidParameter('transform must be an object');
  const record = value as Record<string, unknown>;
  return parseWith((name) => record[name], limits);
}

/** The options as a signed token carries them: only what was set, so the claim stays short. */
export function transformClaim(options: TransformOptions): Record<string, string | number> {
  const claim: Record<string, string | number> = { resize: options.resize };
  if (options.quality) claim.quality = options.quality;
  if (options.width) claim.width = options.width;
  if (options.height) claim.height = options.height;
  if (options.format) claim.format = options.format;
  return claim;
}

/** A stable text of the options, part of the cache key and the ETag. */
export function canonicalTransform(options: TransformOptions): string {
  return `w=${options.width ?? 0},h=${options.height ?? 0},r=${options.resize},q=${options.quality ?? DEFAULT_QUALITY}`;
}

// imgproxy's names for the modes, which Supabase's X-Transformations header reports.
const IMGPROXY_RESIZE: Record<ResizeMode, string> = { cover: 'fill', contain: 'fit', fill: 'force' };

/** The X-Transformations header of Supabase's render answers, e.g. `height:200,width:200,resizing_type:fill`. */
export function transformationsHeader(options: TransformOptions): string {
  const parts: string[] = [];
  if (options.height) parts.push(`height:${options.height}`);
  if (options.width) parts.push(`width:${options.width}`);
  if (options.width || options.height) parts.push(`resizing_type:${IMGPROXY_RESIZE[options.resize]}`);
  if (options.quality) parts.push(`quality:${options.quality}`);
  if (options.format && options.format !== 'origin') parts.push(`format:${options.format}`);
  return parts.join(',');
}
