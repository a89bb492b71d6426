/**
 * Precompile verification rate, in-process: Ed25519 and Secp256k1 instructions as web3.js builds
 * them, each signed by a different key over a different message. Three figures per precompile:
 * the verifier alone, whole transactions (payer + precompile instruction) through the executor,
 * and LiteSVM (Agave's precompiles) running the same transactions with sigverify off (the executor
 * does not check transaction signatures either; the node checks those before it).
 */
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { Ed25519Program, Keypair as Web3Keypair, Secp256k1Program } from '@solana/web3.js';
import { keccak256 } from '../node-core/common/hash.ts';
import { DEFAULT_RENT } from '../node-core/ledger/genesis-config.ts';
import { newAccount, type Account } from '../node-core/runtime/account.ts';
import { executeTransaction } from '../node-core/runtime/executor.ts';
import { compileMessage, signMessageWith } from './lib/precompile-transactions.ts';
import { builtinPrograms } from '../node-core/runtime/programs/index.ts';
import { ED25519_PROGRAM_ID, SECP256K1_PROGRAM_ID } from '../node-core/runtime/programs/precompiles/index.ts';
import { verifyEd25519 } from '../node-core/runtime/programs/precompiles/ed25519.ts';
import { verifySecp256k1 } from '../node-core/runtime/programs/precompiles/secp256k1.ts';
import { renderSysvar, SYSVAR_IDS, type Sysvars } from '../node-core/runtime/sysvars.ts';
import { SYSTEM_PROGRAM_ID, type Address } from '../node-core/common/pubkey.ts';
import { generateKeypair } from '../node-core/keys/keypair.ts';
import { parseTransaction } from '../node-core/runtime/wire.ts';
import { headline } from './lib/headline.ts';

const COUNT = Number(process.env.PRECOMPILE_BENCH_COUNT ?? 3000);
const secp256k1 = createRequire(import.meta.url)('secp256k1') as {
  ecdsaSign(msg32: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(key: Uint8Array, compressed?: boolean): Uint8Array;
};

function ed25519Datas(n: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => {
    const signer = Web3Keypair.generate();
    return new Uint8Array(Ed25519Program.createInstructionWithPrivateKey({ privateKey: signer.secretKey, message: Buffer.from(`ed25519 message ${i}`) }).data);
  });
}

function secp256k1Datas(n: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => {
    const key = crypto.randomBytes(32);
    key[0] = 1;
    const message = Buffer.from(`secp256k1 message ${i}`);
    const { signature, recid } = secp256k1.ecdsaSign(keccak256(message), key);
    const ethAddress = Secp256k1Program.publicKeyToEthAddress(secp256k1.publicKeyCreate(key, false).subarray(1));
    return new Uint8Array(Secp256k1Program.createInstructionWithEthAddress({ ethAddress, message, signature: Buffer.from(signature), recoveryId: recid }).data);
  });
}

const rate = (n: number, seconds: number) => Math.round(n / seconds);

function timeVerifier(datas: Uint8Array[], verify: (d: Uint8Array, all: Uint8Array[]) => void): number {
  const start = performance.now();
  for (const d of datas) verify(d, [d]);
  return rate(datas.length, (performance.now() - start) / 1000);
}

async function main(): Promise<void> {
  const { LiteSVM } = await import('litesvm');
  const { getTransactionDecoder } = await import('@solana/kit');
  const svm = new LiteSVM().withSigverify(false);
  const payer = generateKeypair();
  svm.airdrop(payer.address as never, 1_000_000_000_000n as never);
  const blockhash = svm.latestBlockhash();
  const decoder = getTransactionDecoder();

  const sysvars: Sysvars = {
    clock: { slot: 1, epochStartTimestamp: 0, epoch: 0, leaderScheduleEpoch: 1, unixTimestamp: Math.floor(Date.now() / 1000) },
    rent: DEFAULT_RENT,
    epochSchedule: { slotsPerEpoch: 432_000, leaderScheduleSlotOffset: 432_000, warmup: false, firstNormalEpoch: 0, firstNormalSlot: 0 },
    recentBlockhashes: [{ blockhash, lamportsPerSignature: 5000 }],
    slotHashes: [],
    lamportsPerSignature: 5000,
  };
  const accounts = new Map<Address, Account>([[payer.address, newAccount(1_000_000_000_000, 0, SYSTEM_PROGRAM_ID)]]);
  const env = {
    readAccount: (a: Address) => accounts.get(a) ?? (SYSVAR_IDS.has(a) ? renderSysvar(a, sysvars) : null),
    sysvars,
    programs: builtinPrograms,
    simulation: true,
    durableNonce: false,
  };

  console.log(`precompile verification, ${COUNT} instructions each, every one a different key and message`);
  // Separate instruction sets for the verifier and the executor, so neither finds the other's keys cached.
  for (const [name, programId, make, verify] of [
    ['Ed25519', ED25519_PROGRAM_ID, ed25519Datas, verifyEd25519],
    ['Secp256k1', SECP256K1_PROGRAM_ID, secp256k1Datas, verifySecp256k1],
  ] as const) {
    const datas = make(COUNT);
    const wires = datas.map((data) => signMessageWith(payer, compileMessage(payer.address, [{ programId, data }], blockhash)));
    const txs = wires.map((w) => parseTransaction(w));
    const verifier = timeVerifier(make(COUNT), verify);
    let start = performance.now();
    let failed = 0;
    for (const tx of txs) if (executeTransaction(tx, env).err !== null) failed++;
    const executor = rate(txs.length, (performance.now() - start) / 1000);
    const decoded = wires.map((w) => decoder.decode(w));
    start = performance.now();
    let peerFailed = 0;
    for (const tx of decoded) if (svm.sendTransaction(tx as never).constructor.name === 'FailedTransactionMetadata') peerFailed++;
    const peer = rate(decoded.length, (performance.now() - start) / 1000);
    if (failed || peerFailed) throw new Error(`${name}: ${failed} failed here, ${peerFailed} in LiteSVM`);
    headline({ bench: 'precompiles', figure: `${name} instructions through the executor`, value: executor, unit: '/s', peer: { name: 'LiteSVM', value: peer } });
    console.log(
      `${name.padEnd(10)} verifier ${verifier.toLocaleString('en-US')}/s; transactions through the executor ${executor.toLocaleString('en-US')}/s` +
        ` = ${(executor / peer).toFixed(2)}x LiteSVM (${peer.toLocaleString('en-US')}/s, same transactions, sigverify off)`,
    );
  }
}

await main();
