/**
 * The crash soak of both spaces, on the real command (bin/isthmus.js): rounds of mixed work —
 * native transfers, token transfers, EVM transfers, bridge transfers both ways, a transaction that
 * lands failed on each side — each waited until finalized and written down; then a burst of the same
 * kinds in flight and `kill -9` once the node has moved a random number of slots on. After each kill
 * `isthmus verify-ledger` must pass on the ledger; after each restart every transaction the node had
 * reported finalized must be there with its status, and every balance only finalized transactions
 * touched must read, at finalized, what they left it. Used by the short soak in `npm test` and by
 * bench/crash-soak.ts (20 kills).
 */
import assert from 'node:assert/strict';
import * as spl from '@solana/spl-token';
import { Connection, Keypair as SolanaKeypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { Contract, JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { BRIDGE_ADDRESS } from '../../node-core/evm/constants.ts';
import { depositInstructions } from '../../node-core/evm/deposit.ts';
import { deriveEvmKeys } from '../../node-core/keys/evm-keys.ts';
import { deriveDevKeypairs } from '../../node-core/keys/mnemonic.ts';
import { compileMessage, signTransaction } from '../../node-core/runtime/message-builder.ts';
import { freePorts, runIsthmus, runToExit, waitForRpc, type NodeProcess } from './cli-process.ts';
import { rpc, tempLedger, waitFor } from './node.ts';
import { prng } from './prng.ts';

const WORDS = 'test test test test test test test test test test test junk';
const WAIT = { timeoutMs: 60_000, everyMs: 50 };

export interface SoakOptions {
  kills: number;
  seed: number;
  ledger?: string;
  /** Extra `start` flags for the first start, which makes the genesis (e.g. --bpf-program). */
  genesisArgs?: string[];
  /** Extra finalized work per round (deployed-program calls in the full soak): returns native signatures and balances to check. */
  extraWork?: (ctx: SoakContext) => Promise<void>;
  log?: (line: string) => void;
}

export interface SoakContext {
  connection: Connection;
  rpcUrl: string;
  /** Records a native transaction reported finalized, and the error it landed with. */
  recordNative(signature: string, err: unknown): void;
  /** Records a native balance only finalized transactions touched. */
  recordBalance(address: string, lamports: number): void;
  waitFinalized(signature: string): Promise<unknown>;
}

export interface SoakReport {
  kills: number;
  nativeTransactions: number;
  evmTransactions: number;
  balances: number;
  verifyLedgerRuns: number;
  lastVerify: string;
}

export async function runCrashSoak(opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const random = prng(opts.seed);
  const ledger = opts.ledger ?? tempLedger();
  const [rpcPort, wsPort, evmPort] = await freePorts(3);
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const evmUrl = `http://127.0.0.1:${evmPort}`;
  const wsEndpoint = `ws://127.0.0.1:${wsPort}`;
  const dev = deriveDevKeypairs(WORDS, 3);
  const [nativePayer, tokenPayer] = dev.map((k) => SolanaKeypair.fromSecretKey(k.secretKey));
  const evmKey = Buffer.from(deriveEvmKeys(WORDS, 1)[0]!.privateKey).toString('hex');

  const nativeFinal = new Map<string, unknown>();
  const evmFinal = new Map<string, { status: number; blockNumber: number }>();
  const nativeBalances = new Map<string, number>();
  const evmBalances = new Map<string, bigint>();
  const tokenBalances = new Map<string, string>();
  let mint: PublicKey | null = null;
  let payerAta: PublicKey | null = null;
  let verifyLedgerRuns = 0;
  let lastVerify = '';

  const start = (round: number) =>
    runIsthmus(['start', '--ledger', ledger, '--rpc-port', String(rpcPort), '--rpc-pubsub-port', String(wsPort), '--evm-rpc-port', String(evmPort), '--slot-ms', '50', '--root-depth', '4', '--quiet', ...(round === 0 ? ['--mnemonic', WORDS, ...(opts.genesisArgs ?? [])] : [])]);

  for (let round = 0; round <= opts.kills; round++) {
    const proc: NodeProcess = start(round);
    await waitForRpc(rpcUrl, proc.child, 60_000);
    const connection = new Connection(rpcUrl, { commitment: 'confirmed', wsEndpoint, disableRetryOnRateLimit: true });
    const provider = new JsonRpcProvider(evmUrl, 5705, { pollingInterval: 50, staticNetwork: true, cacheTimeout: -1 });
    const alice = new Wallet(evmKey, provider);
    const waitFinalized = (signature: string) =>
      waitFor(async () => {
        const s = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0];
        return s?.confirmationStatus === 'finalized' ? { err: s.err } : null;
      }, { ...WAIT, what: `finalization of ${signature}` });
    const ctx: SoakContext = {
      connection,
      rpcUrl,
      recordNative: (sig, err) => nativeFinal.set(sig, err),
      recordBalance: (address, lamports) => nativeBalances.set(address, lamports),
      waitFinalized,
    };
    try {
      if (round > 0) await checkAfterRestart();
      if (round === opts.kills) {
        log(`round ${round}: checks passed after the last restart`);
        break;
      }
      await finalizedWork();
      if (opts.extraWork) await opts.extraWork(ctx);
      // In flight when the kill comes: the node is killed once it has moved 1 to 8 slots on.
      const slot = (await rpc(rpcUrl, 'getSlot', [{ commitment: 'processed' }])).result as number;
      const target = slot + 1 + Math.floor(random() * 8);
      const burst = burstSends(connection, alice, 4 + Math.floor(random() * 12));
      await waitFor(async () => ((await rpc(rpcUrl, 'getSlot', [{ commitment: 'processed' }])).result as number) >= target, { ...WAIT, what: `slot ${target}` });
      log(`round ${round}: kill -9 at slot ≥ ${target} with a burst in flight`);
      proc.child.kill('SIGKILL');
      await proc.exited;
      await burst;
    } finally {
      provider.destroy();
      if (proc.child.exitCode === null && proc.child.signalCode === null) {
        proc.child.kill('SIGKILL');
        await proc.exited;
      }
    }
    const verify = await runToExit(['verify-ledger', '--ledger', ledger], { timeoutMs: 60_000 });
    assert.equal(verify.code, 0, `verify-ledger after kill ${round + 1}:\n${verify.stdout}${verify.stderr}`);
    verifyLedgerRuns++;
    lastVerify = verify.stdout;
  }
  return { kills: opts.kills, nativeTransactions: nativeFinal.size, evmTransactions: evmFinal.size, balances: nativeBalances.size + evmBalances.size + tokenBalances.size, verifyLedgerRuns, lastVerify };

  async function checkAfterRestart(): Promise<void> {
    const sigs = [...nativeFinal.keys()];
    for (let i = 0; i < sigs.length; i += 200) {
      const batch = sigs.slice(i, i + 200);
      const statuses = (await rpc(rpcUrl, 'getSignatureStatuses', [batch, { searchTransactionHistory: true }])).result.value as Array<{ err: unknown; confirmationStatus: string } | null>;
      batch.forEach((sig, j) => {
        assert.ok(statuses[j], `finalized transaction ${sig} is gone after the restart`);
        assert.equal(statuses[j]!.confirmationStatus, 'finalized', sig);
        assert.deepEqual(statuses[j]!.err, nativeFinal.get(sig), `status of ${sig}`);
      });
    }
    for (const [hash, want] of evmFinal) {
      const r = (await rpc(evmUrl, 'eth_getTransactionReceipt', [hash])).result;
      assert.ok(r, `finalized EVM transaction ${hash} is gone after the restart`);
      assert.deepEqual({ status: Number(r.status), blockNumber: Number(r.blockNumber) }, want, hash);
    }
    const addresses = [...nativeBalances.keys()];
    for (let i = 0; i < addresses.length; i += 100) {
      const batch = addresses.slice(i, i + 100);
      const accounts = (await rpc(rpcUrl, 'getMultipleAccounts', [batch, { commitment: 'finalized', encoding: 'base64' }])).result.value as Array<{ lamports: number } | null>;
      batch.forEach((a, j) => assert.equal(accounts[j]?.lamports ?? 0, nativeBalances.get(a), `balance of ${a} at finalized`));
    }
    for (const [address, wei] of evmBalances) assert.equal(BigInt((await rpc(evmUrl, 'eth_getBalance', [address, 'finalized'])).result), wei, `EVM balance of ${address} at finalized`);
    for (const [ata, amount] of tokenBalances) {
      const r = await rpc(rpcUrl, 'getTokenAccountBalance', [ata, { commitment: 'finalized' }]);
      assert.equal(r.result?.value.amount, amount, `token balance of ${ata} at finalized`);
    }
  }

  async function sendNative(connection: Connection, tx: Transaction, signers: SolanaKeypair[]): Promise<string> {
    tx.recentBlockhash = (await connection.getLatestBlockhash('confirmed')).blockhash;
    tx.feePayer = signers[0]!.publicKey;
    tx.sign(...signers);
    return connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  }

  async function finalizedWork(): Promise<void> {
    const connection = new Connection(rpcUrl, { commitment: 'confirmed', wsEndpoint });
    const provider = new JsonRpcProvider(evmUrl, 5705, { pollingInterval: 50, staticNetwork: true, cacheTimeout: -1 });
    const alice = new Wallet(evmKey, provider);
    const pending: Array<Promise<void>> = [];
    const native = (sig: string, after?: () => Promise<void>) =>
      pending.push((async () => {
        const { err } = (await waitForFinal(connection, sig))!;
        nativeFinal.set(sig, err);
        await after?.();
      })());
    const evm = (hash: string, after?: () => void) =>
      pending.push((async () => {
        const r = await waitFor(async () => (await rpc(evmUrl, 'eth_getTransactionReceipt', [hash])).result, { ...WAIT, what: `receipt ${hash}` });
        await waitForFinal(connection, r.nativeSignature);
        evmFinal.set(hash, { status: Number(r.status), blockNumber: Number(r.blockNumber) });
        nativeFinal.set(r.nativeSignature, null);
        after?.();
      })());
    try {
      // Native transfer to a new account.
      const to = SolanaKeypair.generate().publicKey;
      const lamports = 1_000_000 + Math.floor(random() * 1_000_000);
      native(await sendNative(connection, new Transaction().add(SystemProgram.transfer({ fromPubkey: nativePayer!.publicKey, toPubkey: to, lamports })), [nativePayer!]), async () => {
        nativeBalances.set(to.toBase58(), lamports);
      });
      // A native transaction that lands failed: an airdrop of 1 lamport to a new account (InsufficientFundsForRent).
      const poor = SolanaKeypair.generate().publicKey.toBase58();
      native((await rpc(rpcUrl, 'requestAirdrop', [poor, 1])).result, async () => {
        nativeBalances.set(poor, 0);
      });
      // Tokens: a new holder's account and a transfer into it.
      if (!mint) {
        mint = await spl.createMint(connection, tokenPayer!, tokenPayer!.publicKey, null, 6);
        payerAta = await spl.createAssociatedTokenAccount(connection, tokenPayer!, mint, tokenPayer!.publicKey);
        await spl.mintTo(connection, tokenPayer!, mint, payerAta, tokenPayer!, 1_000_000_000n);
      }
      const holder = SolanaKeypair.generate().publicKey;
      const ata = spl.getAssociatedTokenAddressSync(mint, holder);
      const amount = BigInt(1 + Math.floor(random() * 1000));
      native(await sendNative(connection, new Transaction().add(
        spl.createAssociatedTokenAccountInstruction(tokenPayer!.publicKey, ata, holder, mint),
        spl.createTransferInstruction(payerAta!, ata, tokenPayer!.publicKey, amount),
      ), [tokenPayer!]), async () => {
        tokenBalances.set(ata.toBase58(), String(amount));
      });
      // Native → EVM: a deposit to a new EVM address.
      const receiver = Wallet.createRandom().address.toLowerCase();
      const depositLamports = 1_000_000_000n + BigInt(Math.floor(random() * 1000));
      const deposit = signTransaction(compileMessage(dev[2]!.address, depositInstructions(dev[2]!.address, receiver, depositLamports), (await connection.getLatestBlockhash()).blockhash), [dev[2]!]);
      native(await connection.sendRawTransaction(deposit.wire, { skipPreflight: true }), async () => {
        evmBalances.set(receiver, depositLamports * 1_000_000_000n);
      });
      // EVM transfer to a new address, EVM → native to a new account, and an EVM transaction that reverts.
      let nonce = await provider.getTransactionCount(alice.address, 'pending');
      const evmTo = Wallet.createRandom().address.toLowerCase();
      const evmValue = parseEther('0.01') + BigInt(Math.floor(random() * 1000));
      evm((await alice.sendTransaction({ to: evmTo, value: evmValue, nonce: nonce++, gasLimit: 21_000 })).hash, () => evmBalances.set(evmTo, evmValue));
      const recipient = SolanaKeypair.generate().publicKey;
      const bridge = new Contract(BRIDGE_ADDRESS, ['function transferToNative(bytes32 native_recipient) payable'], alice);
      const word = `0x${Buffer.from(recipient.toBytes()).toString('hex')}`;
      evm((await bridge.getFunction('transferToNative')(word, { value: parseEther('1'), nonce: nonce++, gasLimit: 100_000 })).hash, () => nativeBalances.set(recipient.toBase58(), 1_000_000_000));
      evm((await bridge.getFunction('transferToNative')(word, { value: 1_500_000_001n, nonce: nonce++, gasLimit: 100_000 })).hash);
      await Promise.all(pending);
    } finally {
      provider.destroy();
    }
  }

  async function waitForFinal(connection: Connection, signature: string) {
    return waitFor(async () => {
      const s = (await connection.getSignatureStatuses([signature], { searchTransactionHistory: true })).value[0];
      return s?.confirmationStatus === 'finalized' ? { err: s.err as unknown } : null;
    }, { ...WAIT, what: `finalization of ${signature}` });
  }

  /** Sends `count` transactions of every kind without waiting for them; resolves once every send has been answered or refused. */
  async function burstSends(connection: Connection, alice: Wallet, count: number): Promise<void> {
    const sends: Array<Promise<unknown>> = [];
    const ignore = () => null;
    try {
      const blockhash = (await connection.getLatestBlockhash('confirmed')).blockhash;
      let nonce = await alice.provider!.getTransactionCount(alice.address, 'pending');
      for (let i = 0; i < count; i++) {
        const kind = Math.floor(random() * 3);
        if (kind === 0) {
          const tx = new Transaction({ recentBlockhash: blockhash, feePayer: nativePayer!.publicKey }).add(SystemProgram.transfer({ fromPubkey: nativePayer!.publicKey, toPubkey: SolanaKeypair.generate().publicKey, lamports: 1_000_000 + i }));
          tx.sign(nativePayer!);
          sends.push(connection.sendRawTransaction(tx.serialize(), { skipPreflight: true }).catch(ignore));
        } else if (kind === 1) {
          const signed = await alice.signTransaction({ to: Wallet.createRandom().address, value: 1000n + BigInt(i), nonce: nonce++, gasLimit: 21_000, chainId: 5705, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 0n });
          sends.push(rpc(evmUrl, 'eth_sendRawTransaction', [signed]).catch(ignore));
        } else {
          const deposit = signTransaction(compileMessage(dev[2]!.address, depositInstructions(dev[2]!.address, Wallet.createRandom().address, 1_000_000n + BigInt(i)), blockhash), [dev[2]!]);
          sends.push(connection.sendRawTransaction(deposit.wire, { skipPreflight: true }).catch(ignore));
        }
      }
    } catch {
      // The node went down while the burst was being built: what was sent is in flight.
    }
    await Promise.all(sends);
  }
}
