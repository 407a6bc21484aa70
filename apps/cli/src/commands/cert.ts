// `auction-ops cert`: a local certificate authority and a server certificate signed by it, for HTTPS on a
// developer's machine. The authority is kept and reused, so a client that trusts it keeps trusting new certificates.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '@auction-ops/server-config';
import { createLocalCertificates } from '@auction-ops/server-config/local-certificates';
import { startCommand } from '../invocation.js';

export async function certCommand(args: { dir?: string; hosts: string[] }): Promise<void> {
  const hosts = ['localhost', '127.0.0.1', '::1', ...args.hosts];
  const out = resolve(args.dir ?? join(loadConfig().DATA_DIR, 'tls'));
  mkdirSync(out, { recursive: true });
  const file = (name: string) => join(out, name);
  const ca =
    existsSync(file('ca.pem')) && existsSync(file('ca-key.pem'))
      ? { cert: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('ca-key.pem'), 'utf8') }
      : undefined;
  const made = createLocalCertificates({ hosts, ca });
  if (!ca) {
    writeFileSync(file('ca.pem'), made.caCert);
    writeFileSync(file('ca-key.pem'), made.caKey, { mode: 0o600 });
  }
  writeFileSync(file('cert.pem'), made.cert);
  writeFileSync(file('key.pem'), made.key, { mode: 0o600 });
  chmodSync(file('key.pem'), 0o600);
  process.stdout.write(
    `${ca ? 'kept the local CA and signed' : 'made a local CA and'} a certificate ` +
      `for ${hosts.join(', ')} in ${out}\n\n` +
      `serve HTTPS:\n  TLS_CERT_FILE=${file('cert.pem')} TLS_KEY_FILE=${file('key.pem')} ` +
      `PUBLIC_URL=https://localhost:54321 ${startCommand()}\n\n` +
      `trust the CA in Node clients:\n  NODE_EXTRA_CA_CERTS=${file('ca.pem')}\n` +
      '(or add ca.pem to the system or browser trust store; keep ca-key.pem private)\n',
  );
}
