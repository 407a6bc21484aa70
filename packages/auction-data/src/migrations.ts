// The auction-data migrations: the events this area emits (the event catalogue is declared per area).
import { fileURLToPath } from 'node:url';

export const auctionDataMigrations = {
  name: 'auction-data',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  dependsOn: ['domain', 'webhooks'],
} as const;
