// Rolls back imports whose server died mid-way (their lock is free), at start and every minute, so a dataset
// never stays `importing` and no staging table is left behind. At start it also has the parse worker's code
// bundled, in the background, so the first import starts as fast as the next.
import { prepareParseWorker, recoverAbandonedImports } from '@auction-ops/functions';
import type { ServerContext, Worker } from '../context.js';

const SWEEP_MS = 60_000;

export async function startImportSweeper(ctx: ServerContext): Promise<Worker> {
  const sweep = () =>
    recoverAbandonedImports(ctx.ownerSql).then(
      (n) => n > 0 && ctx.log.info('abandoned imports rolled back', { count: n }),
      (error) => ctx.log.error('import sweep failed', { error: String(error) }),
    );
  prepareParseWorker().catch((error) =>
    ctx.log.warn('the import parse worker could not be bundled; imports will try again', { error: String(error) }),
  );
  await sweep();
  const timer = setInterval(sweep, SWEEP_MS);
  timer.unref();
  return {
    name: 'import-sweeper',
    async stop() {
      clearInterval(timer);
    },
  };
}
