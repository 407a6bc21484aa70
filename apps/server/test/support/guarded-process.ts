// A process with the last guard installed and a plain HTTP server whose routes fail the ways that escape every
// handler: an 'error' event nobody listens to, thrown from a timer inside the request (`/emit`), and a rejected
// promise nobody awaits (`/reject`). `/ok` answers 200. Run by last-guard.test.ts as a child process; prints its port.
import { EventEmitter } from 'node:events';
import { createServer } from 'node:http';
import { inRequestScope, installLastGuard } from '../../src/http/last-guard.js';
import { createLogger } from '../../src/logger.js';
import { processFaults } from '../../src/process-faults.js';

installLastGuard(createLogger('info'));
const server = createServer((req, res) =>
  inRequestScope(res, () => {
    if (req.url === '/emit') setTimeout(() => new EventEmitter().emit('error', new Error('nobody listens')), 5);
    else if (req.url === '/reject') void Promise.reject(new Error('nobody awaits'));
    else res.end(JSON.stringify(processFaults()));
  }),
);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`port ${typeof address === 'object' && address ? address.port : 0}\n`);
});
