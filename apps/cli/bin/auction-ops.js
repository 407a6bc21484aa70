#!/usr/bin/env node
// The `auction-ops` command: loads the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
