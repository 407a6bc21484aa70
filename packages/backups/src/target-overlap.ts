// A data directory and a directory backup target must not hold one another: a backup would copy the target into
// itself, the archive would live inside the cluster it archives (and go with it), a restore would write into the
// archive it reads. Pointed at the target by mistake, a command once made a cluster inside it.
import { relative, resolve, isAbsolute } from 'node:path';

/** Whether `inner` is `outer` or lies under it. */
function within(inner: string, outer: string): boolean {
  const path = relative(outer, inner);
  return path === '' || (!path.startsWith('..') && !isAbsolute(path));
}

/**
 * What is wrong when the data directory `dataDir` and the backup target `spec` overlap; undefined when they are
 * apart, or when the target is not a directory (S3).
 */
export function targetOverlap(dataDir: string, spec: string, dataDirName = 'DATA_DIR'): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(spec)) return undefined;
  const [data, target] = [resolve(dataDir), resolve(spec)];
  if (within(data, target)) return `${dataDirName} ${data} is inside the backup target ${target}`;
  if (within(target, data)) return `the backup target ${target} is inside ${dataDirName} ${data}`;
  return undefined;
}
