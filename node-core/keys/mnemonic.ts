import * as bip39 from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { HDKey } from 'micro-key-producer/slip10.js';
import { keypairFromSeed, type Keypair } from './keypair.ts';

/** Lower-cases and collapses whitespace, so a phrase pasted with extra spaces or newlines still works. */
export const normalizeMnemonic = (words: string): string =>
  words.trim().toLowerCase().split(/\s+/).join(' ');

/** 12 English words (128 bits), solana-keygen's default. */
export const generateMnemonic = (): string => bip39.generateMnemonic(wordlist, 128);

export const validateMnemonic = (words: string): boolean =>
  typeof words === 'string' && bip39.validateMnemonic(normalizeMnemonic(words), wordlist);

/** The path Phantom and `solana-keygen recover prompt://?key=i/0` use for account i. */
export const devDerivationPath = (index: number): string => `m/44'/501'/${index}'/0'`;

/** Keys at m/44'/501'/i'/0' for i in 0..count-1, from the BIP39 seed with an empty passphrase. */
export function deriveDevKeypairs(mnemonic: string, count: number): Keypair[] {
  const words = normalizeMnemonic(mnemonic);
  if (!bip39.validateMnemonic(words, wordlist)) throw new Error('invalid BIP39 mnemonic');
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`bad key count ${count}`);
  const root = HDKey.fromMasterSeed(bip39.mnemonicToSeedSync(words, ''));
  const keys: Keypair[] = [];
  for (let i = 0; i < count; i++) keys.push(keypairFromSeed(root.derive(devDerivationPath(i)).privateKey));
  return keys;
}
