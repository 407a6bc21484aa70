#!/usr/bin/env node
// `pnpm start`: builds the server (build/server-build.mjs) and runs the build. The cluster's primary builds; its
// workers, which node:cluster starts from this same script, run the build their primary made.
import cluster from 'node:cluster';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILD_VARIABLE, buildServer } from '../build/server-build.mjs';

if (cluster.isPrimary) process.env[BUILD_VARIABLE] = await buildServer();
// Stack traces in logs name the TypeScript sources, as they did under tsx.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(process.env[BUILD_VARIABLE], 'main.mjs')).href);
