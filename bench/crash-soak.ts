/**
 * bench/crash-soak: the full crash soak — 20 `kill -9` of a real `isthmus start` at random moments
 * under mixed load (native, token, EVM and bridge transfers both ways, a failed transaction on each
 * side, and calls of a deployed sBPF program that moves lamports by CPI into the System program);
 * after each kill `isthmus verify-ledger` must pass, after each restart every transaction reported
 * finalized must be there with its status and every finalized balance unchanged. Prints what it checked.
 *
 *   npm run soak:crash [-- --kills N --seed S]
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { PublicKey, SystemProgram, Transaction, TransactionInstruction, Keypair as SolanaKeypair } from '@solana/web3.js';
import { deriveDevKeypairs } from '../node-core/keys/mnemonic.ts';
import { generateKeypair } from '../node-core/keys/keypair.ts';
import { killLeftovers, ROOT } from '../test/helpers/cli-process.ts';
import { runCrashSoak } from '../test/helpers/crash-soak.ts';
import { tempLedger } from '../test/helpers/node.ts';

const { values } = parseArgs({ options: { kills: { type: 'string', default: '20' }, seed: { type: 'string' } } });
const kills = Number(values.kills);
const seed = values.seed !== undefined ? Number(values.seed) : Date.now() % 1_000_000;
const program = new PublicKey(generateKeypair().address);
const programFile = `${ROOT}/test/fixtures/sbf/simple_transfer_program.so`;
// The soak's fixed dev words: account 3 pays the program's transfers.
const payer = SolanaKeypair.fromSecretKey(deriveDevKeypairs('test test test test test test test test test test test junk', 4)[3]!.secretKey);
let programCalls = 0;

const ledger = tempLedger();
const started = Date.now();
console.log(`crash soak: ${kills} kills, seed ${seed} (--seed ${seed} repeats it), ledger ${ledger}`);
try {
  const report = await runCrashSoak({
    kills,
    seed,
    ledger,
    genesisArgs: ['--bpf-program', program.toBase58(), programFile],
    log: (line) => console.log(`  ${line}`),
    async extraWork({ connection, recordNative, recordBalance, waitFinalized }) {
      const recipient = SolanaKeypair.generate().publicKey;
      const lamports = 2_000_000 + programCalls;
      const data = Buffer.alloc(8);
      data.writeBigUInt64BE(BigInt(lamports));
      const tx = new Transaction().add(new TransactionInstruction({
        programId: program,
        keys: [
          { pubkey: payer.publicKey, isSigner: true, isWritable: true },
          { pubkey: recipient, isSigner: false, isWritable: true },
          { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
        ],
        data,
      }));
      tx.recentBlockhash = (await connection.getLatestBlockhash('confirmed')).blockhash;
      tx.feePayer = payer.publicKey;
      tx.sign(payer);
      const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
      const { err } = (await waitFinalized(signature)) as { err: unknown };
      if (err !== null) throw new Error(`the program call ${signature} failed: ${JSON.stringify(err)}`);
      recordNative(signature, err);
      recordBalance(recipient.toBase58(), lamports);
      programCalls++;
    },
  });
  console.log(`checked after each of ${report.kills} kills and restarts:`);
  console.log(`  verify-ledger passed ${report.verifyLedgerRuns} times; the last report:`);
  for (const line of report.lastVerify.trim().split('\n')) console.log(`    ${line}`);
  console.log(`  ${report.nativeTransactions} native transactions reported finalized (${programCalls} deployed-program calls among them): all there, each with its status`);
  console.log(`  ${report.evmTransactions} EVM transactions reported finalized: all there, each with its status and block`);
  console.log(`  ${report.balances} balances only finalized transactions touched (native, EVM, token): all unchanged at finalized`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
} finally {
  killLeftovers();
  fs.rmSync(ledger, { recursive: true, force: true });
}
