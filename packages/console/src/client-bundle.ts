// Builds the console's browser code (src/client, supabase-js included) with esbuild, once per process and in
// memory: no build step at install time, nothing on disk, and file names carry a content hash so browsers may
// cache them for good.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

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

function hashed(stem: string, extension: string, contentType: string, body: Uint8Array): BundleFile {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  return { name: `${stem}-${hash}.${extension}`, contentType, body };
}

async function buildClientBundle(): Promise<ClientBundle> {
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
  return {
    script: hashed('console', 'js', 'text/javascript; charset=utf-8', js.contents),
    style: hashed('console', 'css', 'text/css; charset=utf-8', css.contents),
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
