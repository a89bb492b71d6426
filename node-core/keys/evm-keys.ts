/**
 * Ethereum-style dev keys: secp256k1 keys at m/44'/60'/0'/0/i from the same BIP39 mnemonic as the
 * native dev accounts (the path MetaMask, Ganache and Anvil use), and their addresses.
 */
import { HDKey } from '@scure/bip32';
import * as bip39 from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { bytesToHex, privateToAddress } from '@ethereumjs/util';
import { normalizeMnemonic } from './mnemonic.ts';

export interface EvmKey {
  /** 0x-prefixed lowercase address. */
  address: `0x${string}`;
  privateKey: Uint8Array;
}

export const evmDerivationPath = (index: number): string => `m/44'/60'/0'/0/${index}`;

export function evmKeyFromPrivateKey(privateKey: Uint8Array): EvmKey {
  return { address: bytesToHex(privateToAddress(privateKey)), privateKey };
}

export function deriveEvmKeys(mnemonic: string, count: number): EvmKey[] {
  const words = normalizeMnemonic(mnemonic);
  if (!bip39.validateMnemonic(words, wordlist)) throw new Error('invalid BIP39 mnemonic');
  const root = HDKey.fromMasterSeed(bip39.mnemonicToSeedSync(words, ''));
  const keys: EvmKey[] = [];
  for (let i = 0; i < count; i++) keys.push(evmKeyFromPrivateKey(root.derive(evmDerivationPath(i)).privateKey!));
  return keys;
}
