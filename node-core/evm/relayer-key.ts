/**
 * The relayer's native keypair: it signs and pays the native transactions that carry EVM transactions
 * (evm/relay.ts). Kept in the ledger folder in the Solana CLI format, made with a new genesis.
 */
import fs from 'node:fs';
import path from 'node:path';
import { generateKeypair, readKeypairFile, writeKeypairFile, type Keypair } from '../keys/keypair.ts';

const RELAYER_KEY_FILE = 'evm-relayer-keypair.json';
/** Where ledgers made before the relayer had its own name keep the key. */
const OLDER_RELAYER_KEY_FILE = 'evm-bridge-keypair.json';

export function createRelayerKey(ledger: string): Keypair {
  const key = generateKeypair();
  writeKeypairFile(path.join(ledger, RELAYER_KEY_FILE), key);
  return key;
}

export function readRelayerKey(ledger: string): Keypair {
  const file = path.join(ledger, RELAYER_KEY_FILE);
  return readKeypairFile(fs.existsSync(file) ? file : path.join(ledger, OLDER_RELAYER_KEY_FILE));
}
