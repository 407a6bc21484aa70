// A local certificate authority and a server certificate it signed, for HTTPS on a developer's machine and in
// tests (`auction-ops cert`). node-forge builds and signs the X.509 certificates; Node's crypto makes the RSA keys.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface LocalCertificates {
  /** The authority to trust (NODE_EXTRA_CA_CERTS, the system store); its key signs server certificates. */
  caCert: string;
  caKey: string;
  /** The server's certificate (signed by the authority) and key: TLS_CERT_FILE and TLS_KEY_FILE. */
  cert: string;
  key: string;
}

export interface LocalCertificateOptions {
  /** Names and addresses the server certificate is valid for. */
  hosts?: readonly string[];
  /** An existing authority to sign with, so a new server certificate stays trusted. */
  ca?: { cert: string; key: string };
  /** Server certificate lifetime; 825 days is the most clients accept for a leaf. */
  days?: number;
}

const DAY_MS = 86_400_000;

function serial(): string {
  // Positive (high bit clear) 16-byte serial, as certificate consumers expect.
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

function newCertificate(publicKey: forge.pki.PublicKey, days: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = serial();
  // Back-dated a little: a client whose clock runs behind still accepts a fresh certificate.
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + days * DAY_MS);
  return cert;
}

export function createLocalCertificates(options: LocalCertificateOptions = {}): LocalCertificates {
  const hosts = options.hosts ?? ['localhost', '127.0.0.1', '::1'];
  let caCert: forge.pki.Certificate;
  let caKey: forge.pki.PrivateKey;
  if (options.ca) {
    caCert = forge.pki.certificateFromPem(options.ca.cert);
    caKey = forge.pki.privateKeyFromPem(options.ca.key);
  } else {
    const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
    caCert = newCertificate(keys.publicKey, 3650);
    const subject = [
      { name: 'commonName', value: 'auction-ops local CA' },
      { name: 'organizationName', value: 'auction-ops development' },
    ];
    caCert.setSubject(subject);
    caCert.setIssuer(subject);
    caCert.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true, pathLenConstraint: 0 },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    caCert.sign(keys.privateKey, forge.md.sha256.create());
    caKey = keys.privateKey;
  }
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const cert = newCertificate(keys.publicKey, options.days ?? 825);
  cert.setSubject([{ name: 'commonName', value: hosts[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      // Type 7 is an IP address, type 2 a DNS name.
      altNames: hosts.map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })),
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKey as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return {
    caCert: forge.pki.certificateToPem(caCert),
    caKey: forge.pki.privateKeyToPem(caKey),
    cert: forge.pki.certificateToPem(cert),
    key: forge.pki.privateKeyToPem(keys.privateKey),
  };
}
