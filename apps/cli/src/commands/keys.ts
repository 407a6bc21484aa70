// `auction-ops keys`: prints the anon and service_role API keys derived from JWT_SECRET.
import { loadSecrets, signApiKey } from '@auction-ops/auth-core';
import { loadConfig } from '@auction-ops/server-config';

export async function keysCommand(): Promise<void> {
  const config = loadConfig();
  const { jwtSecret } = loadSecrets(config.DATA_DIR, config.JWT_SECRET, { create: false });
  console.log(`anon:         ${config.ANON_KEY ?? (await signApiKey(jwtSecret, 'anon'))}`);
  console.log(`service_role: ${config.SERVICE_ROLE_KEY ?? (await signApiKey(jwtSecret, 'service_role'))}`);
}
