// DATA_DIR/server.json: which server serves this DATA_DIR, where, and which release, for `auction-ops status`.
// Written by the primary once every process listens, removed when it stops; one left by a killed server names a
// process that is gone, which the reader checks.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServerInfo {
  pid: number;
  url: string;
  version: string;
  processes: number;
  started_at: string;
}

const fileIn = (dataDir: string) => join(dataDir, 'server.json');

/** Writes the file and returns what removes it. A DATA_DIR that cannot be written only costs `status` its line. */
export function writeServerInfo(dataDir: string, info: ServerInfo): () => void {
  const file = fileIn(dataDir);
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  } catch {
    return () => {};
  }
  return () => {
    try {
      if ((JSON.parse(readFileSync(file, 'utf8')) as ServerInfo).pid === info.pid) rmSync(file);
    } catch {
      // gone already, or another server's
    }
  };
}

/** The server running on `dataDir`, if its process is alive. */
export function runningServerInfo(dataDir: string): ServerInfo | undefined {
  let info: ServerInfo;
  try {
    info = JSON.parse(readFileSync(fileIn(dataDir), 'utf8')) as ServerInfo;
    process.kill(info.pid, 0);
  } catch {
    return undefined;
  }
  return info;
}
