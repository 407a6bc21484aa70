// The release of auction-ops: its one place is the server's package.json (CHANGELOG.md names what each brings).
import { readFileSync } from 'node:fs';

export const version: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
