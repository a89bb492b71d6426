import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as ed from '@noble/ed25519';
import { HDKey } from 'micro-key-producer/slip10.js';
import { decodeBase58, encodeBase58 } from '../../node-core/common/base58.ts';
import { defaultLedgerDir } from '../../node-core/common/data-dir.ts';
import { ed25519Verify } from '../../node-core/common/ed25519.ts';
import {
  generateKeypair,
  keypairFromSeed,
  readKeypairFile,
  sign,
  writeKeypairFile,
} from '../../node-core/keys/keypair.ts';
import {
  deriveDevKeypairs,
  devDerivationPath,
  generateMnemonic,
  normalizeMnemonic,
  validateMnemonic,
} from '../../node-core/keys/mnemonic.ts';

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const toHex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

// RFC 8032 section 7.1, test 1 (empty message) and test 2 (one byte 0x72).
const RFC_SEED = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60');
const RFC_PUB = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
const RFC_SIG_EMPTY =
  'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b';
const RFC2_SEED = hex('4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb');
const RFC2_SIG =
  '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-keys-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The public key of a seed as node's OpenSSL computes it, independent of noble. */
function nodePublicKey(seed: Uint8Array): Uint8Array {
  const key = crypto.createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const jwk = crypto.createPublicKey(key).export({ format: 'jwk' });
  return Uint8Array.from(Buffer.from(jwk.x!, 'base64url'));
}

describe('keypair', () => {
  test('keypairFromSeed matches RFC 8032 and uses the Solana CLI layout', () => {
    const kp = keypairFromSeed(RFC_SEED);
    assert.equal(toHex(kp.publicKey), RFC_PUB);
    assert.equal(kp.secretKey.length, 64);
    assert.deepEqual(kp.secretKey.subarray(0, 32), RFC_SEED);
    assert.deepEqual(kp.secretKey.subarray(32), kp.publicKey);
    assert.equal(kp.address, encodeBase58(kp.publicKey));
    assert.deepEqual(decodeBase58(kp.address), kp.publicKey);
  });

  test('keypairFromSeed copies the seed and rejects wrong lengths', () => {
    const seed = RFC_SEED.slice();
    const kp = keypairFromSeed(seed);
    seed.fill(0);
    assert.deepEqual(kp.secretKey.subarray(0, 32), RFC_SEED);
    assert.throws(() => keypairFromSeed(new Uint8Array(31)), /32 bytes/);
    assert.throws(() => keypairFromSeed(new Uint8Array(64)), /32 bytes/);
  });

  test('sign gives the RFC 8032 signatures', () => {
    assert.equal(toHex(sign(keypairFromSeed(RFC_SEED), new Uint8Array(0))), RFC_SIG_EMPTY);
    assert.equal(toHex(sign(keypairFromSeed(RFC2_SEED), Uint8Array.of(0x72))), RFC2_SIG);
  });

  test('sign agrees with noble and verifies, for many keys and messages (cached keys stay apart)', () => {
    const keys = Array.from({ length: 5 }, generateKeypair);
    for (let round = 0; round < 3; round++) {
      for (const kp of keys) {
        const msg = crypto.randomBytes(1 + round * 100);
        const sig = sign(kp, msg);
        assert.ok(sig instanceof Uint8Array);
        assert.equal(sig.length, 64);
        assert.deepEqual(sig, ed.sign(msg, kp.secretKey.subarray(0, 32)));
        assert.ok(ed.verify(sig, msg, kp.publicKey));
        assert.ok(ed25519Verify(kp.publicKey, msg, sig));
        assert.ok(!ed25519Verify(keys.find((k) => k !== kp)!.publicKey, msg, sig));
      }
    }
  });

  test('generateKeypair gives distinct keys whose public key node crypto agrees with', () => {
    const a = generateKeypair();
    const b = generateKeypair();
    assert.notEqual(a.address, b.address);
    assert.deepEqual(a.publicKey, nodePublicKey(a.secretKey.subarray(0, 32)));
  });

  test('keypair files round-trip in the Solana CLI format with mode 0600', () => {
    const kp = generateKeypair();
    const file = path.join(tmp, 'nested', 'deeper', 'id.json');
    writeKeypairFile(file, kp);
    const json = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(json, Array.from(kp.secretKey));
    const back = readKeypairFile(file);
    assert.equal(back.address, kp.address);
    assert.deepEqual(back.secretKey, kp.secretKey);
    if (process.platform !== 'win32') assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  test('writeKeypairFile tightens the mode of an existing file', { skip: process.platform === 'win32' }, () => {
    const file = path.join(tmp, 'existing.json');
    fs.writeFileSync(file, 'old', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    writeKeypairFile(file, generateKeypair());
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  });

  describe('readKeypairFile rejects bad files, naming the file', () => {
    const good = Array.from(keypairFromSeed(RFC_SEED).secretKey);
    const cases: [string, string, RegExp][] = [
      ['not-json', 'hello', /not valid JSON/],
      ['object', '{"a":1}', /array of 64 bytes, got object/],
      ['short', JSON.stringify(good.slice(0, 63)), /got 63 elements/],
      ['long', JSON.stringify([...good, 1]), /got 65 elements/],
      ['big', JSON.stringify([256, ...good.slice(1)]), /bad byte at index 0: 256/],
      ['negative', JSON.stringify([...good.slice(0, 5), -1, ...good.slice(6)]), /bad byte at index 5: -1/],
      ['fraction', JSON.stringify([1.5, ...good.slice(1)]), /bad byte at index 0: 1.5/],
      ['string', JSON.stringify(['7', ...good.slice(1)]), /bad byte at index 0: "7"/],
      ['null', JSON.stringify([null, ...good.slice(1)]), /bad byte at index 0: null/],
      ['mismatch', JSON.stringify([...good.slice(0, 63), good[63]! ^ 1]), /public key does not match/],
    ];
    for (const [name, content, pattern] of cases) {
      test(name, () => {
        const file = path.join(tmp, `bad-${name}.json`);
        fs.writeFileSync(file, content);
        assert.throws(() => readKeypairFile(file), (e: Error) => {
          assert.match(e.message, pattern);
          assert.ok(e.message.includes(file), e.message);
          return true;
        });
      });
    }
    test('missing file', () => {
      const file = path.join(tmp, 'absent.json');
      assert.throws(() => readKeypairFile(file), (e: Error) => e.message.includes(file) && /cannot read/.test(e.message));
    });
  });
});

// --- An independent SLIP-0010 / BIP39 implementation on node:crypto, used only to cross-check. ---
function slip10(seed: Uint8Array, path: number[]): { key: Uint8Array; chainCode: Uint8Array } {
  let I = crypto.createHmac('sha512', 'ed25519 seed').update(seed).digest();
  for (const index of path) {
    const data = Buffer.alloc(37);
    I.copy(data, 1, 0, 32);
    data.writeUInt32BE((index | 0x80000000) >>> 0, 33);
    I = crypto.createHmac('sha512', I.subarray(32)).update(data).digest();
  }
  return { key: Uint8Array.from(I.subarray(0, 32)), chainCode: Uint8Array.from(I.subarray(32)) };
}
const bip39Seed = (mnemonic: string): Uint8Array =>
  crypto.pbkdf2Sync(mnemonic.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');

describe('mnemonic', () => {
  const TEST_WORDS = 'test test test test test test test test test test test junk';

  test('SLIP-0010 ed25519 test vector 1 (spec values), by the library and the independent code', () => {
    const seed = hex('000102030405060708090a0b0c0d0e0f');
    const node = HDKey.fromMasterSeed(seed).derive("m/0'/1'/2'/2'/1000000000'");
    const mine = slip10(seed, [0, 1, 2, 2, 1000000000]);
    for (const [key, chainCode] of [[node.privateKey, node.chainCode], [mine.key, mine.chainCode]] as const) {
      assert.equal(toHex(key), '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793');
      assert.equal(toHex(chainCode), '68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230');
    }
    assert.equal(toHex(keypairFromSeed(node.privateKey).publicKey), '3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a');
    assert.equal(toHex(slip10(seed, [0]).key), '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3');
    assert.equal(toHex(slip10(seed, []).key), '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7');
  });

  test(`deriveDevKeypairs("${TEST_WORDS}") matches the independent derivation`, () => {
    const keys = deriveDevKeypairs(TEST_WORDS, 3);
    assert.equal(keys.length, 3);
    assert.equal(keys[0]!.address, 'oeYf6KAJkLYhBuR8CiGc6L4D4Xtfepr85fuDgA9kq96');
    const seed = bip39Seed(TEST_WORDS);
    keys.forEach((kp, i) => {
      const { key } = slip10(seed, [44, 501, i, 0]);
      assert.deepEqual(kp.secretKey.subarray(0, 32), key);
      assert.equal(kp.address, encodeBase58(nodePublicKey(key)));
    });
    assert.equal(new Set(keys.map((k) => k.address)).size, 3);
  });

  test('deriveDevKeypairs matches a wallet SDK’s published m/44\'/501\'/0\'/0\' key', () => {
    // From OKX js-wallet-sdk coin-solana tests (getDerivedPrivateKey, index 0).
    const [kp] = deriveDevKeypairs('famous grow judge chair narrow auction order repeat hungry endless market taxi', 1);
    assert.equal(
      encodeBase58(kp!.secretKey),
      '42gxtUbib5ETVJAX8aMYrLG3XahGnMXvAHXa4TkhWZJ6ev64bzPXsRQzYEmQvriQwHeWjEu8JqwpyRYCR7hYUnAG',
    );
  });

  test('deriveDevKeypairs normalizes spacing and case, and rejects bad input', () => {
    const a = deriveDevKeypairs(`  ${TEST_WORDS.toUpperCase().replaceAll(' ', ' \n ')}  `, 1);
    assert.equal(a[0]!.address, deriveDevKeypairs(TEST_WORDS, 1)[0]!.address);
    assert.deepEqual(deriveDevKeypairs(TEST_WORDS, 0), []);
    assert.throws(() => deriveDevKeypairs('test test test', 1), /invalid BIP39/);
    assert.throws(() => deriveDevKeypairs(TEST_WORDS, -1), RangeError);
    assert.throws(() => deriveDevKeypairs(TEST_WORDS, 1.5), RangeError);
  });

  test('devDerivationPath', () => {
    assert.equal(devDerivationPath(0), "m/44'/501'/0'/0'");
    assert.equal(devDerivationPath(9), "m/44'/501'/9'/0'");
  });

  test('generateMnemonic gives 12 valid, distinct words', () => {
    const m = generateMnemonic();
    assert.equal(m.split(' ').length, 12);
    assert.ok(validateMnemonic(m));
    assert.notEqual(m, generateMnemonic());
  });

  test('validateMnemonic', () => {
    assert.ok(validateMnemonic(TEST_WORDS));
    assert.ok(validateMnemonic(` ${TEST_WORDS.toUpperCase()}\n`));
    assert.ok(validateMnemonic('abandon '.repeat(23) + 'art'));
    assert.ok(!validateMnemonic('test test test test test test test test test test test test'), 'bad checksum');
    assert.ok(!validateMnemonic('test test test test test test test test test test junk'), '11 words');
    assert.ok(!validateMnemonic('test test test test test test test test test test test notaword'));
    assert.ok(!validateMnemonic(''));
    assert.ok(!validateMnemonic(42 as unknown as string));
    assert.equal(normalizeMnemonic('  A\tb\n c '), 'a b c');
  });
});

describe('defaultLedgerDir', () => {
  test('Linux uses XDG_DATA_HOME, else ~/.local/share', () => {
    assert.equal(defaultLedgerDir('linux', { XDG_DATA_HOME: '/data' }, '/home/u'), '/data/isthmus/ledger');
    assert.equal(defaultLedgerDir('linux', {}, '/home/u'), '/home/u/.local/share/isthmus/ledger');
    assert.equal(defaultLedgerDir('linux', { XDG_DATA_HOME: 'relative' }, '/home/u'), '/home/u/.local/share/isthmus/ledger');
    assert.equal(defaultLedgerDir('freebsd', {}, '/home/u'), '/home/u/.local/share/isthmus/ledger');
  });
  test('macOS', () => {
    assert.equal(defaultLedgerDir('darwin', { XDG_DATA_HOME: '/x' }, '/Users/u'), '/Users/u/Library/Application Support/Isthmus/ledger');
  });
  test('Windows', () => {
    assert.equal(
      defaultLedgerDir('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u'),
      'C:\\Users\\u\\AppData\\Roaming\\Isthmus\\ledger',
    );
    assert.equal(defaultLedgerDir('win32', {}, 'C:\\Users\\u'), 'C:\\Users\\u\\AppData\\Roaming\\Isthmus\\ledger');
  });
  test('the default for this machine is absolute', () => {
    assert.ok(path.isAbsolute(defaultLedgerDir()));
  });
});
