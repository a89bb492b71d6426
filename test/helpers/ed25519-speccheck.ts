/** The ed25519-speccheck edge cases (test/fixtures/ed25519-speccheck.json, with their source) as bytes. */
import fs from 'node:fs';
import path from 'node:path';

export interface SpeccheckCase {
  message: Uint8Array;
  publicKey: Uint8Array;
  signature: Uint8Array;
  /** ed25519-dalek's verify_strict (Agave's check) accepts it. */
  dalekStrict: boolean;
  /** OpenSSL 3.0's Ed25519 verify accepts it. */
  openssl3: boolean;
}

export function speccheckCases(): SpeccheckCase[] {
  const file = path.join(import.meta.dirname, '../fixtures/ed25519-speccheck.json');
  const { cases } = JSON.parse(fs.readFileSync(file, 'utf8')) as { cases: Array<Record<'message' | 'publicKey' | 'signature', string> & Pick<SpeccheckCase, 'dalekStrict' | 'openssl3'>> };
  return cases.map((c) => ({
    message: Buffer.from(c.message, 'hex'),
    publicKey: Buffer.from(c.publicKey, 'hex'),
    signature: Buffer.from(c.signature, 'hex'),
    dalekStrict: c.dalekStrict,
    openssl3: c.openssl3,
  }));
}
