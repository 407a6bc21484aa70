// Builds the console's browser code (src/client, supabase-js included) with esbuild, once per process and in
// memory: no build step at install time, nothing on disk, and file names carry a content hash so browsers may
// cache them for good. The installed npm package (`pnpm pack:server`) ships the two files built beforehand in
// client-prebuilt/ beside this module, and no esbuild; a checkout has no such directory and builds.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface BundleFile {
  /** The file's name under /console/assets/, with its content hash. */
  name: string;
  contentType: string;
  body: Uint8Array;
}

export interface ClientBundle {
  script: BundleFile;
  style: BundleFile;
}

const ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url));
const PREBUILT = {
  script: new URL('./client-prebuilt/console.js', import.meta.url),
  style: new URL('./client-prebuilt/console.css', import.meta.url),
};

function hashed(stem: string, extension: string, contentType: string, body: Uint8Array): BundleFile {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { name: `${stem}-${hash}.${extension}`, contentType, body };
}

/** The console's script and style sheet, unhashed: what the package ships prebuilt. */
export async function buildClientFiles(): Promise<{ script: Uint8Array; style: Uint8Array }> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    write: false,
    outdir: 'out',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  const css = result.outputFiles.find((f) => f.path.endsWith('.css'));
  if (!js || !css) throw new Error('the console bundle lacks its script or its style sheet');
  return { script: js.contents, style: css.contents };
}

async function buildClientBundle(): Promise<ClientBundle> {
  const { script, style } = existsSync(PREBUILT.script)
    ? { script: await readFile(PREBUILT.script), style: await readFile(PREBUILT.style) }
    : await buildClientFiles();
  return {
    script: hashed('console', 'js', 'text/javascript; charset=utf-8', script),
    style: hashed('console', 'css', 'text/css; charset=utf-8', style),
  };
}

let built: Promise<ClientBundle> | undefined;

/** The bundle of this process, built on first use; a failed build is retried by the next request. */
export function clientBundle(): Promise<ClientBundle> {
  built ??= buildClientBundle().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}
