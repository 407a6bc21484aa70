// Which format a rendered image is written in. Supabase (through imgproxy) keeps the source format unless the
// client may take a smaller one: format=origin keeps it, format=webp/avif forces one, and with no format the
// Accept header decides, AVIF before WebP.
import type { RequestedFormat } from './transform-options.js';

export type OutputFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'gif';

/** The target before the source is read: a fixed format, or 'origin' (decided by the source's bytes). */
export type FormatChoice = OutputFormat | 'origin';

const CONTENT_TYPES: Record<OutputFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

function accepts(accept: string, type: string): boolean {
  return accept.split(',').some((part) => {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
    return range?.trim() === type && !refused;
  });
}

export function chooseFormat(requested: RequestedFormat, accept: string | undefined): FormatChoice {
  if (requested === 'webp' || requested === 'avif') return requested;
  if (requested === 'origin' || !accept) return 'origin';
  if (accepts(accept, 'image/avif')) return 'avif';
  if (accepts(accept, 'image/webp')) return 'webp';
  return 'origin';
}

/**
 * The format of 'origin' for a source sharp decoded. Formats it cannot write, or should not serve (SVG, TIFF,
 * HEIF), become PNG when the image has transparency and JPEG otherwise.
 */
export function originFormat(source: string | undefined, hasAlpha: boolean): OutputFormat {
  if (source === 'jpeg' || source === 'png' || source === 'webp' || source === 'gif') return source;
  if (source === 'heif') return 'avif';
  return hasAlpha ? 'png' : 'jpeg';
}

export function contentTypeOf(format: OutputFormat): string {
  return CONTENT_TYPES[format];
}

export function formatOfContentType(type: string): OutputFormat | undefined {
  return (Object.keys(CONTENT_TYPES) as OutputFormat[]).find((f) => CONTENT_TYPES[f] === type);
}
