// Images for the transformation tests, made with sharp: stripes (to tell crop from stretch), noise (large
// files), and a hand-built PNG decompression bomb whose header claims 900 megapixels in about 100 KB.
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';

/** width x height with a red band (1/8 of the width) at each side and green between. */
export function stripes(width: number, height: number, format: 'jpeg' | 'png' | 'webp'): Promise<Buffer> {
  const band = Math.round(width / 8);
  const red = { r: 255, g: 0, b: 0, alpha: 1 };
  const box = (left: number) => ({
    input: { create: { width: band, height, channels: 4 as const, background: red } },
    left,
    top: 0,
  });
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 255, b: 0 } } })
    .composite([box(0), box(width - band)])
    .toFormat(format)
    .toBuffer();
}

/** Random pixels: a PNG about 3 bytes per pixel. */
export function noisePng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 2654435761) >>> 24;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A valid 1-bit greyscale PNG of side x side zero pixels: tiny on disk, side² pixels when decoded. */
export function pngBomb(side = 30_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter method, no interlace
  const rows = Buffer.alloc((Math.ceil(side / 8) + 1) * side);
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
