// Child process for storage-memory.test.ts: runs a real server and samples its own resident memory, so the
// test measures the server alone (the uploading client lives in the parent process).
import { loadConfig, startServer } from '../src/index.js';

const server = await startServer(
  loadConfig({
    PORT: '0',
    DATABASE_URL: process.env.STORAGE_MEMORY_DATABASE_URL,
    DATA_DIR: process.env.STORAGE_MEMORY_DATA_DIR,
    LOG_LEVEL: 'silent',
    JWT_SECRET: process.env.STORAGE_MEMORY_JWT_SECRET,
    WORKERS_ENABLED: 'false',
  }),
);

let baseline = 0;
let peak = 0;
// Sampling on a timer: RSS falls slowly after a spike, so a sample taken a little late still sees the peak.
setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);

process.on('message', async (message: string) => {
  if (message === 'reset') {
    (globalThis as { gc?: () => void }).gc?.();
    baseline = process.memoryUsage().rss;
    peak = baseline;
    process.send!({ baseline });
  } else if (message === 'peak') {
    peak = Math.max(peak, process.memoryUsage().rss);
    process.send!({ baseline, peak });
  } else if (message === 'stop') {
    await server.close();
    process.exit(0);
  }
});
process.send!({ url: server.url, anonKey: server.ctx.anonKey });
