#!/usr/bin/env node
// The `auction-ops` command in a checkout: the CLI's entry of the server's production build
// (apps/server/build/server-build.mjs), bundled again only when the sources change. Under a TypeScript loader each
// command spent over a second of CPU loading its sources before doing anything. `auction-ops start` serves from the
// same build; the workers node:cluster starts from this script run the build their primary made.
import cluster from 'node:cluster';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILD_VARIABLE, buildServer } from '../../server/build/server-build.mjs';

if (cluster.isPrimary) process.env[BUILD_VARIABLE] = await buildServer();
// Stack traces name the TypeScript sources.
process.setSourceMapsEnabled(true);
await import(pathToFileURL(join(process.env[BUILD_VARIABLE], 'cli.mjs')).href);
