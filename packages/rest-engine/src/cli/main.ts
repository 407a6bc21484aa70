#!/usr/bin/env node
// `rest-engine [config-file]`: a PostgREST drop-in. Reads PostgREST's config file and PGRST_* variables, serves
// until SIGTERM/SIGINT, reloads the schema cache on SIGUSR1 (and on NOTIFY pgrst).
import { readFileSync } from 'node:fs';
import { readConfig } from './postgrest-config.js';
import { serve } from './serve.js';

async function main(): Promise<void> {
  const file = process.argv[2];
  if (file === '--help' || file === '-h') {
    console.log('usage: rest-engine [postgrest.conf]   (PGRST_* environment variables override the file)');
    return;
  }
  const { config, notes } = readConfig(process.env, file ? readFileSync(file, 'utf8') : null);
  if (notes.unknown.length) console.warn(`rest-engine: unknown settings, ignored: ${notes.unknown.join(', ')}`);
  if (notes.unsupported.length)
    console.warn(`rest-engine: PostgREST settings not supported, ignored: ${notes.unsupported.join(', ')}`);
  const running = await serve(config);
  console.log(
    `rest-engine: listening on ${running.url} (schemas ${config.dbSchemas.join(', ')}, anonymous role ${config.dbAnonRole ?? 'none'})`,
  );
  process.on('SIGUSR1', () => {
    running.engine.reloadSchema().then(
      () => console.log('rest-engine: schema cache reloaded'),
      (e: Error) => console.error(`rest-engine: schema reload failed: ${e.message}`),
    );
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`rest-engine: ${signal}, finishing requests in flight`);
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: Error) => {
  // One line: configuration and start-up errors are the operator's to fix, a stack trace does not help.
  console.error(e.message.startsWith('rest-engine:') ? e.message : `rest-engine: ${e.message}`);
  process.exit(1);
});
