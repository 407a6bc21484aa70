// `auction-ops cert`: the files it writes form a chain Node accepts for the local names, keys are private to the
// user, and a second run keeps the authority (so clients that trust it keep trusting new certificates).
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { commands } from '../command-table.js';
import { certCommand } from './cert.js';
import { UsageError } from '../usage-error.js';

const dir = mkdtempSync(join(tmpdir(), 'cli-cert-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const read = (name: string) => readFileSync(join(dir, name), 'utf8');

describe('auction-ops cert', () => {
  it('makes a local CA and a server certificate for localhost, loopback and extra hosts', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await certCommand({ dir, hosts: ['api.local'] });
    } finally {
      out.mockRestore();
    }
    const ca = new X509Certificate(read('ca.pem'));
    const cert = new X509Certificate(read('cert.pem'));
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.checkHost('localhost')).toBe('localhost');
    expect(cert.checkHost('api.local')).toBe('api.local');
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkHost('example.com')).toBeUndefined();
    expect(statSync(join(dir, 'key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
  });

  it('a second run keeps the CA and signs a new certificate with it', async () => {
    const caBefore = read('ca.pem');
    const certBefore = read('cert.pem');
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await certCommand({ dir, hosts: [] });
    } finally {
      out.mockRestore();
    }
    expect(read('ca.pem')).toBe(caBefore);
    expect(read('cert.pem')).not.toBe(certBefore);
    expect(new X509Certificate(read('cert.pem')).verify(new X509Certificate(caBefore).publicKey)).toBe(true);
  });

  it('refuses unknown arguments and a flag without its value', async () => {
    expect(() => commands.cert!.start(['--bogus'])).toThrow(UsageError);
    expect(() => commands.cert!.start(['--host'])).toThrow("Option '--host <value>' argument missing");
  });
});
