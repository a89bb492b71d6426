/**
 * A ledger with a long history, made quickly: the real node (startNode, its genesis and store) is
 * started on `dir`, and its chain is driven by hand — real signed transactions executed into the
 * working bank, each slot sealed and committed through the same path the slot clock uses — instead of
 * waiting a slot time per slot. The clock keeps running beside it (its slots are ordinary empty ones).
 * When it returns the node is closed (store flushed, lock released), so `isthmus start --ledger dir`
 * opens it like any other ledger.
 *
 * The store fsyncs every slot's commit, as it must; on a busy disk that wait is most of the time (a
 * few ms a slot), so where a RAM disk exists (/dev/shm) the ledger is made there and copied to `dir`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MEMO_PROGRAM_ID, type Address } from '../../node-core/common/pubkey.ts';
import { keypairFromSeed, type Keypair } from '../../node-core/keys/keypair.ts';
import type { Chain } from '../../node-core/ledger/chain.ts';
import { compileMessage, signTransaction, type InstructionSpec } from '../../node-core/runtime/message-builder.ts';
import { systemTransferInstruction } from '../../node-core/runtime/programs/system-instruction.ts';
import { startNode } from '../../node-core/node/start.ts';
import { DEFAULT_OPTIONS, type NodeOptions } from '../../node-core/node/options.ts';

/** Slots sealed between waits for the store, so unrooted banks and pending commits stay few. */
const FLUSH_EVERY = 256;
/** Recipients of the transfers: few enough that each has thousands of signatures to page through. */
const RECIPIENT_COUNT = 16;
const TRANSFER_LAMPORTS = 1_000_000;

export interface LongLedger {
  dir: string;
  /** The newest stored slot. */
  lastSlot: number;
  /** Transactions written (all kinds). */
  transactionCount: number;
  /** The chain's transaction count as stored: those plus the validator's vote in every slot. */
  storedTransactionCount: number;
  /** Failed transactions among them (InsufficientFunds, fee charged). */
  failedCount: number;
  /** Transactions carrying a memo. */
  memoCount: number;
  /** Payers (dev accounts) and recipients of the transfers. */
  payers: Address[];
  recipients: Address[];
  /** The account that signs the failing transfers; every one of its signatures is a failure but the funding one. */
  failing: Address;
  genesisHash: string;
  mnemonic: string;
  /** Milliseconds it took. */
  elapsedMs: number;
}

export interface LongLedgerOptions {
  /** BIP39 words of the dev accounts [default: new words]. */
  mnemonic?: string;
  /** Progress callback, every 10,000 slots. */
  progress?: (slot: number) => void;
}

const memo = (text: string): InstructionSpec => ({ programId: MEMO_PROGRAM_ID, data: new TextEncoder().encode(text) });

/** A deterministic keypair per label (the recipients and the failing signer), so runs are comparable. */
function labelledKeypair(label: string): Keypair {
  const seed = new Uint8Array(32);
  new TextEncoder().encodeInto(`isthmus long ledger ${label}`.padEnd(32, '.'), seed);
  return keypairFromSeed(seed);
}

/**
 * Creates a genesis ledger in `dir` (which must be empty or missing) and writes slots 1..`slots`.
 * Slot s holds s % 3 transactions (one a slot on average): transfers from the dev accounts to a few
 * recipients, every 7th with a memo, every 500th a failing transfer (insufficient funds).
 */
export async function makeLongLedger(dir: string, slots: number, opts: LongLedgerOptions = {}): Promise<LongLedger> {
  const scratch = ramDiskScratch();
  if (!scratch) return writeLongLedger(dir, slots, opts);
  try {
    const made = await writeLongLedger(path.join(scratch, 'ledger'), slots, opts);
    fs.cpSync(made.dir, dir, { recursive: true });
    return { ...made, dir };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A new folder on a RAM disk, or null when there is none (not Linux, or not writable). */
function ramDiskScratch(): string | null {
  try {
    return fs.mkdtempSync('/dev/shm/isthmus-long-ledger-');
  } catch {
    return null;
  }
}

async function writeLongLedger(dir: string, slots: number, opts: LongLedgerOptions): Promise<LongLedger> {
  const started = Date.now();
  const node = await startNode({
    ...(DEFAULT_OPTIONS as Omit<NodeOptions, 'ledger'>),
    ledger: dir,
    rpcPort: 0,
    evmRpcPort: 0,
    quiet: true,
    mnemonic: opts.mnemonic,
  });
  const chain: Chain = node.chain;
  const payers = node.keys.devAccounts;
  const recipients = Array.from({ length: RECIPIENT_COUNT }, (_, i) => labelledKeypair(`recipient ${i}`).address);
  const failing = labelledKeypair('failing');
  let transactionCount = 0;
  let storedTransactionCount = 0;
  let failedCount = 0;
  let memoCount = 0;
  let txIndex = 0;

  const execute = (signer: Keypair, instructions: InstructionSpec[]) => {
    const message = compileMessage(signer.address, instructions, chain.latestBlockhash('processed').blockhash);
    const result = chain.processTransaction(signTransaction(message, [signer]));
    transactionCount++;
    if (result.err) failedCount++;
    return result;
  };

  try {
    // Enough for the fees of every failing transfer.
    execute(payers[0]!, [systemTransferInstruction(payers[0]!.address, failing.address, 100_000_000)]);
    while (chain.processedSlot <= slots) {
      const slot = chain.processedSlot;
      for (let i = 0; i < slot % 3; i++, txIndex++) {
        if (txIndex % 500 === 499) {
          execute(failing, [systemTransferInstruction(failing.address, recipients[0]!, 1_000_000_000_000_000)]);
          continue;
        }
        const payer = payers[txIndex % payers.length]!;
        const ixs = [systemTransferInstruction(payer.address, recipients[txIndex % recipients.length]!, TRANSFER_LAMPORTS)];
        if (txIndex % 7 === 0) {
          ixs.push(memo(`slot ${slot} transfer ${txIndex}`));
          memoCount++;
        }
        const result = execute(payer, ixs);
        if (result.err) throw new Error(`transfer in slot ${slot} failed: ${JSON.stringify(result.err)}`);
      }
      chain.sealWorkingBank();
      if (slot % FLUSH_EVERY === 0) await chain.flushed();
      if (slot % 10_000 === 0) opts.progress?.(slot);
    }
    await chain.flushed();
    // The working bank (not stored: it holds only the validator's vote) is not counted.
    storedTransactionCount = chain.totalTransactionCount - chain.bankAt('processed').transactions.length;
  } finally {
    await node.close();
  }
  return {
    dir,
    // close() waited for every sealed slot to be stored.
    lastSlot: chain.confirmedSlot,
    transactionCount,
    storedTransactionCount,
    failedCount,
    memoCount,
    payers: payers.map((k) => k.address),
    recipients,
    failing: failing.address,
    genesisHash: node.genesisHash,
    mnemonic: node.keys.mnemonic,
    elapsedMs: Date.now() - started,
  };
}

// ---- a cached template, for tests and benchmarks that need a long ledger more than once ----

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A digest of the code that decides what a ledger holds on disk: a template made by other code is not reused. */
function ledgerFormatDigest(): string {
  const h = crypto.createHash('sha256');
  h.update(fs.readFileSync(fileURLToPath(import.meta.url)));
  for (const dir of ['node-core/store', 'node-core/ledger', 'node-core/evm']) {
    const files = fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const name of files.map((e) => path.relative(ROOT, path.join(e.parentPath, e.name))).sort()) h.update(name).update(fs.readFileSync(path.join(ROOT, name)));
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * A fresh copy of a long ledger of `slots` slots in a new temp folder. The ledger is made once per
 * machine (and per version of the ledger code) as a template under the temp folder, then copied
 * (a second or two for 100,000 slots instead of a minute or more). The copy is `dir` inside a new temp
 * folder: the caller deletes `path.dirname(result.dir)`.
 */
export async function copyOfLongLedger(slots: number, opts: Pick<LongLedgerOptions, 'progress'> = {}): Promise<LongLedger> {
  const template = path.join(os.tmpdir(), `isthmus-long-ledger-${slots}-${ledgerFormatDigest()}`);
  const infoFile = path.join(template, 'long-ledger.json');
  if (!fs.existsSync(infoFile)) {
    // Made aside and renamed into place, so a concurrent maker or a killed run never leaves half a template.
    const building = fs.mkdtempSync(`${template}.building-`);
    const made = await makeLongLedger(path.join(building, 'ledger'), slots, opts);
    fs.writeFileSync(path.join(building, 'long-ledger.json'), JSON.stringify(made));
    try {
      fs.renameSync(building, template);
    } catch {
      fs.rmSync(building, { recursive: true, force: true }); // another process got there first
    }
  }
  const now = new Date();
  fs.utimesSync(template, now, now); // in use: kept by pruneStaleTemplates
  pruneStaleTemplates(path.basename(template));
  const info = JSON.parse(fs.readFileSync(infoFile, 'utf8')) as LongLedger;
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-long-')), 'ledger');
  fs.cpSync(path.join(template, 'ledger'), dir, { recursive: true });
  return { ...info, dir };
}

/** A template unused for this long was made by code since changed (or a killed run): removed. */
const STALE_TEMPLATE_MS = 60 * 60 * 1000;

function pruneStaleTemplates(current: string): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith('isthmus-long-ledger-') || name === current) continue;
    const p = path.join(os.tmpdir(), name);
    try {
      if (Date.now() - fs.statSync(p).mtimeMs > STALE_TEMPLATE_MS) fs.rmSync(p, { recursive: true, force: true });
    } catch {
      // removed meanwhile by another process
    }
  }
}
