// Rendered images on disk, bounded in bytes: one file per key (a hash of object version, options and format),
// least recently used first out. The index lives in memory and is rebuilt from the directory at start; other
// processes sharing the directory may evict a file this one still lists, which reads as a miss.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contentTypeOf, formatOfContentType, type OutputFormat } from './output-format.js';

export interface CachedImage {
  bytes: Buffer;
  contentType: string;
}

const FILE_NAME = /^([0-9a-f]{64})\.(jpeg|png|webp|avif|gif)$/;

export class RenderCache {
  /** key -> size and format; Map order is recency order (oldest first). */
  private readonly entries = new Map<string, { size: number; format: OutputFormat }>();
  private total = 0;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
  ) {}

  get sizeBytes(): number {
    return this.total;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      const found: Array<{ key: string; format: OutputFormat; size: number; mtime: number }> = [];
      for (const name of await readdir(this.dir)) {
        const parts = FILE_NAME.exec(name);
        const info = parts ? await stat(join(this.dir, name)).catch(() => undefined) : undefined;
        // Half-written temporaries of a crashed process are removed; cache files are indexed by age.
        if (!parts || !info) await rm(join(this.dir, name), { force: true });
        else found.push({ key: parts[1]!, format: parts[2] as OutputFormat, size: info.size, mtime: info.mtimeMs });
      }
      for (const entry of found.sort((a, b) => a.mtime - b.mtime)) this.remember(entry.key, entry.size, entry.format);
      await this.evict();
    })();
    return this.ready;
  }

  private remember(key: string, size: number, format: OutputFormat): void {
    this.forget(key);
    this.entries.set(key, { size, format });
    this.total += size;
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.size;
  }

  private async evict(): Promise<void> {
    for (const [key, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.forget(key);
      await rm(join(this.dir, `${key}.${entry.format}`), { force: true });
    }
  }

  async get(key: string): Promise<CachedImage | undefined> {
    if (this.maxBytes === 0) return undefined;
    await this.init();
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    const bytes = await readFile(join(this.dir, `${key}.${entry.format}`)).catch(() => undefined);
    if (!bytes) {
      this.forget(key);
      return undefined;
    }
    this.remember(key, bytes.length, entry.format);
    return { bytes, contentType: contentTypeOf(entry.format) };
  }

  async put(key: string, image: CachedImage): Promise<void> {
    const format = formatOfContentType(image.contentType);
    if (this.maxBytes === 0 || !format || image.bytes.length > this.maxBytes) return;
    await this.init();
    if (!/^[0-9a-f]{64}$/.test(key)) throw new Error('cache keys are sha-256 hex digests');
    // Written aside and renamed, so a reader never sees half a file.
    const temporary = join(this.dir, `${randomUUID()}.tmp`);
    await writeFile(temporary, image.bytes);
    await rename(temporary, join(this.dir, `${key}.${format}`));
    this.remember(key, image.bytes.length, format);
    await this.evict();
  }
}
