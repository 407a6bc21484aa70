#!/usr/bin/env node
// The installed package's `auction-ops` command: the bundled CLI (dist/cli.mjs), which also runs the server.
import { resolve } from 'node:path';

// Stack traces name the sources' files and lines (dist/*.map).
process.setSourceMapsEnabled(true);
// A checkout keeps its data at its root; an installed package keeps it where the operator runs the command, never in
// node_modules. Set here, before any configuration is read, and inherited by the cluster's workers as a full path.
process.env.DATA_DIR ??= resolve('.data');
await import('../dist/cli.mjs');
