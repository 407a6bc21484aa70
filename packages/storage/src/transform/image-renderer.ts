// The sharp (libvips) pipeline: decode with a pixel limit, honour EXIF orientation, resize, encode. sharp's
// async API runs the work on libuv's worker threads, so the event loop only hands buffers over.
import type { FitEnum, Sharp, SharpConstructor } from 'sharp';
import { DEFAULT_QUALITY, type ResizeMode, type TransformOptions } from './transform-options.js';
import { contentTypeOf, type FormatChoice, type OutputFormat, originFormat } from './output-format.js';
import { StorageError } from '../storage-errors.js';
import { renderErrors } from './render-errors.js';

interface RenderedImage {
  bytes: Buffer;
  contentType: string;
  width: number;
  height: number;
}

// Supabase's modes in sharp's words: cover crops to fill the box, contain fits inside it without padding,
// fill stretches to it. Like imgproxy without `enlarge`, a smaller source is never scaled up.
const FIT: Record<ResizeMode, keyof FitEnum> = { cover: 'cover', contain: 'inside', fill: 'fill' };

function encode(pipeline: Sharp, format: OutputFormat, quality: number): Sharp {
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality, mozjpeg: false });
    case 'png':
      return pipeline.png({ quality });
    case 'webp':
      return pipeline.webp({ quality });
    case 'avif':
      // effort 2: libheif's default (4) costs several times more CPU for a few percent of bytes.
      return pipeline.avif({ quality, effort: 2 });
    case 'gif':
      return pipeline.gif();
  }
}

const SOURCE_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif']);

let loading: Promise<SharpConstructor> | undefined;

/**
 * sharp, loaded at the first transformation: libvips adds about 27 MB to a process's memory, which every server
 * process (one per core) would otherwise carry without ever rendering an image.
 */
function loadSharp(): Promise<SharpConstructor> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    // Photographs only: libvips's other loaders (SVG with its XML and references, TIFF, FITS, PDF, ...) are attack
    // surface that no phone picture needs, so they are blocked in libvips itself, for every sharp call in this
    // process (only this module uses sharp on stored bytes). A blocked format fails as "unsupported image format".
    sharp.block({ operation: ['VipsForeignLoad'] });
    sharp.unblock({
      operation: [
        'VipsForeignLoadJpeg',
        'VipsForeignLoadPng',
        'VipsForeignLoadWebp',
        'VipsForeignLoadNsgif',
        'VipsForeignLoadHeif',
      ],
    });
    return sharp;
  });
  return loading;
}

// sharp's messages for input it cannot or will not decode; anything else is our fault and stays a 500.
const SOURCE_ERRORS =
  /unsupported image format|corrupt|premature end|invalid|bad seek|vipsjpeg|pngload|webpload|heifload|gifload|tiffload|read error|not a known|out of order/i;

/** `input` is the image's bytes, or the path of a file holding them. */
export async function renderImage(
  input: Buffer | string,
  options: TransformOptions,
  target: FormatChoice,
  maxPixels: number,
): Promise<RenderedImage> {
  const sharp = await loadSharp();
  try {
    const format = target === 'origin' ? await sourceFormat(sharp, input, maxPixels) : target;
    // limitInputPixels refuses a bomb from the header, before a single pixel is decoded (sharp checks it as it
    // opens the input); failOn 'error' refuses truncated data.
    let pipeline = sharp(input, { limitInputPixels: maxPixels, failOn: 'error' }).rotate();
    if (options.width || options.height) {
      pipeline = pipeline.resize({
        width: options.width,
        height: options.height,
        fit: FIT[options.resize],
        withoutEnlargement: true,
      });
    }
    const { data, info } = await encode(pipeline, format, options.quality ?? DEFAULT_QUALITY).toBuffer({
      resolveWithObject: true,
    });
    return { bytes: data, contentType: contentTypeOf(format), width: info.width, height: info.height };
  } catch (error) {
    if (error instanceof StorageError) throw error;
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw renderErrors.resolutionTooLarge(maxPixels);
    if (error instanceof Error && SOURCE_ERRORS.test(error.message)) throw renderErrors.invalidSource();
    throw error;
  }
}

/** The output format that keeps the source's: read from its header (no pixel decoded), refusing a bomb as well. */
async function sourceFormat(sharp: SharpConstructor, input: Buffer | string, maxPixels: number): Promise<OutputFormat> {
  const meta = await sharp(input, { limitInputPixels: false }).metadata();
  if (!meta.width || !meta.height || !SOURCE_FORMATS.has(meta.format ?? '')) throw renderErrors.invalidSource();
  if (meta.width * meta.height > maxPixels) throw renderErrors.resolutionTooLarge(maxPixels);
  return originFormat(meta.format, meta.hasAlpha === true);
}
