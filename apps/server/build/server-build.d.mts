/** The directory of the default builds: apps/server/dist. */
export const DEFAULT_OUT_DIR: string;
/** Bundles the server into `<outDir>/build-<content hash>/` (main.mjs, index.mjs) and returns that directory. */
export function buildServer(outDir?: string): Promise<string>;
