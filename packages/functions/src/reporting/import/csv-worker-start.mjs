// Entry of an import's parse worker: worker threads start without the server's TypeScript loader, so this
// registers tsx in the thread and loads the worker's module.
import { register } from 'tsx/esm/api';

register();
await import('./csv-worker.ts');
