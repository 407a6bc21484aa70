// Recognises image types from their first bytes, so a declared Content-Type is never taken on trust.
export const SNIFF_BYTES = 32;

const HEIC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs']);
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'heif']);

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.subarray(start, end)).toString('latin1');
}

/** The image type of these leading bytes, or undefined when they are not one we recognise. */
export function sniffImageType(head: Uint8Array): string | undefined {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 8 && ascii(head, 0, 8) === '\x89PNG\r\n\x1a\n') return 'image/png';
  if (head.length >= 6 && (ascii(head, 0, 6) === 'GIF87a' || ascii(head, 0, 6) === 'GIF89a')) return 'image/gif';
  if (head.length >= 12 && ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP') return 'image/webp';
  // ISO base media file: [size][ftyp][major brand][minor version][compatible brands...]
  if (head.length >= 12 && ascii(head, 4, 8) === 'ftyp') {
    const major = ascii(head, 8, 12);
    if (HEIC_BRANDS.has(major)) return 'image/heic';
    if (HEIF_BRANDS.has(major)) {
      const boxEnd = Math.min(head.length, (head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!);
      for (let i = 16; i + 4 <= boxEnd; i += 4) if (HEIC_BRANDS.has(ascii(head, i, i + 4))) return 'image/heic';
      return 'image/heif';
    }
  }
  return undefined;
}

const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
};

/** 'Image/JPG; charset=x' -> 'image/jpeg'; undefined for a missing or unusable declaration. */
export function normaliseMimeType(declared: string | undefined | null): string | undefined {
  const base = declared?.split(';')[0]?.trim().toLowerCase();
  if (!base || base === 'application/octet-stream') return undefined;
  return ALIASES[base] ?? base;
}

/** HEIC is a HEIF profile: clients label the same file either way. */
export function sameImageFamily(a: string, b: string): boolean {
  const heif = (t: string) => t === 'image/heic' || t === 'image/heif';
  return a === b || (heif(a) && heif(b));
}

/** Whether a bucket's list allows `type`: exact (HEIC and HEIF as one family) or a `type/*` wildcard. */
export function typeAllowed(type: string, allowed: readonly string[]): boolean {
  return allowed.some((a) => (a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : sameImageFamily(a, type)));
}
