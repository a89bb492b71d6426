/**
 * The sBPF engine: one LiteSVM instance (Agave's SVM in-process) used as a scratch machine. Before a
 * transaction runs, the accounts it touches are copied in from the bank and the sysvars set from it;
 * the transaction is simulated (so the engine keeps nothing of its own) and its outcome mapped back by
 * the executor. Signatures, blockhashes, fees, the status cache and the ledger stay the node's.
 *
 * Compiling happens when an executable account is set (litesvm's set_account loads the program into
 * its cache, reading the programdata at that moment; setting a programdata account later does not
 * recompile). So each program is set once per content: the engine remembers what it compiled each
 * program from and re-sets the program only when that changed (a deploy, an upgrade, a bank of another
 * commitment with older bytes), which keeps an old bank from running newer code.
 *
 * An account is copied in only when the engine does not already hold that very Account object of the
 * bank (banks replace an account's object whenever it changes, and a simulation changes nothing in
 * the engine): a program's account and programdata, a token mint, are copied once, not per transaction.
 *
 * Agave's visibility rules LiteSVM lacks are imposed the same way: a program whose programdata was
 * written in the current slot (deploy, upgrade, extend) or that has no programdata left (closed) is set
 * while the engine's programdata is empty, so the engine's loader answers as Agave's does for a
 * DelayVisibility or Closed cache entry: `Program is not deployed`, UnsupportedProgramId.
 */
import { existsSync, readFileSync } from 'node:fs';
import { addressAt, addressBytes } from '../../common/key-cache.ts';
import { BPF_LOADER_2_ID, SYSTEM_PROGRAM_ID, addressToBytes, type Address } from '../../common/pubkey.ts';
import { RENT_EXEMPT_RENT_EPOCH, type Account } from '../account.ts';
import type { Sysvars } from '../sysvars.ts';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID } from '../programs/token/state.ts';
import { BPF_LOADER_UPGRADEABLE_ID, PROGRAMDATA_METADATA_SIZE, decodeUpgradeableState, encodeUpgradeableState, programDataAddress } from '../programs/bpf-loader/upgradeable-state.ts';
import type { LiteSvmBinding } from './load-engine.ts';

type LiteSvm = InstanceType<LiteSvmBinding['LiteSvm']>;
type EngineAccount = InstanceType<LiteSvmBinding['Account']>;

const U64_MAX = (1n << 64n) - 1n;
const SYSTEM_BYTES = addressToBytes(SYSTEM_PROGRAM_ID);
const UPGRADEABLE_BYTES = addressToBytes(BPF_LOADER_UPGRADEABLE_ID);
/** Addresses whose held bank object the engine remembers at most; past it it forgets them all (they are copied in again). */
const HELD_LIMIT = 4_096;

/**
 * What the engine's cache holds for a program: compiled from these bytes (of this bank account), or
 * set as not deployed. An upgradeable program's stamp also names the program account it was read
 * from and its programdata's deployment slot, so the next transaction skips decoding both.
 */
type ProgramStamp = { kind: 'compiled'; bytes: Uint8Array; from: Account; upgradeable?: UpgradeableStamp } | { kind: 'notDeployed' };
type UpgradeableStamp = { program: Account; programData: Address; deployedSlot: number };

export interface EngineRun {
  ok: boolean;
  /** The engine's error object when !ok (engine-errors.ts maps it). */
  err: unknown;
  logs: string[];
  computeUnitsConsumed: number;
  innerInstructions: Array<Array<{ programIdIndex: number; accounts: number[]; data: Uint8Array; stackHeight: number }>>;
  returnData: { programId: Address; data: Uint8Array } | null;
  /** Accounts after the transaction (present when it succeeded). */
  postAccounts: Map<Address, Account>;
}

/** Where the programs of the engine come from: the bank's accounts, by address. */
export type ReadAccount = (address: Address) => Account | null;

/**
 * The deployment state of an upgradeable program in a bank: its programdata account and whether Agave
 * would run it in `slot` (deployed in an earlier slot). Null when `account` is no upgradeable Program.
 */
export function upgradeableProgramState(account: Account, read: ReadAccount, slot: number): { programData: Address; runnable: boolean; deployedSlot: number } | null {
  if (account.owner !== BPF_LOADER_UPGRADEABLE_ID || !account.executable) return null;
  let state;
  try {
    state = decodeUpgradeableState(account.data);
  } catch {
    return null;
  }
  if (state.kind !== 'program') return null;
  const pd = read(state.programData);
  let deployedSlot = Infinity;
  if (pd && pd.owner === BPF_LOADER_UPGRADEABLE_ID && pd.data.length > PROGRAMDATA_METADATA_SIZE) {
    try {
      const pdState = decodeUpgradeableState(pd.data);
      if (pdState.kind === 'programData') deployedSlot = pdState.slot;
    } catch {
      // not deployed
    }
  }
  return { programData: state.programData, runnable: deployedSlot < slot, deployedSlot };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
}

/**
 * The SPL builds: beside this module in the sources; from the desktop bundle (dist/electron/main.mjs,
 * two folders below the project root, where node-core/ is packaged as files) at the same place under the root.
 */
const ASSET_FOLDERS = [new URL('./assets/', import.meta.url), new URL('../../node-core/runtime/sbf/assets/', import.meta.url)];

function assetBytes(name: string): Uint8Array {
  const folder = ASSET_FOLDERS.find((f) => existsSync(new URL(name, f))) ?? ASSET_FOLDERS[0]!;
  return new Uint8Array(readFileSync(new URL(name, folder)));
}

export class SbfEngine {
  private readonly svm: LiteSvm;
  private readonly programs = new Map<Address, ProgramStamp>();
  /** The bank account whose copy the engine holds at an address (null: an empty account); absent when unknown. */
  private readonly held = new Map<Address, Account | null>();
  private sysvarsSet: Sysvars | null = null;
  private clockKey = '';
  /** Programs that run as the node's builtins at top level and as these real builds inside the engine. */
  static readonly ENGINE_OWNED = new Set<Address>([TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID]);

  constructor(private readonly binding: LiteSvmBinding) {
    const svm = new binding.LiteSvm();
    svm.setSigverify(false);
    svm.setBlockhashCheck(false);
    svm.setTransactionHistory(0n);
    // The SPL builds solana-test-validator runs at these addresses, not LiteSVM's own (assets/README.md).
    svm.addProgramWithLoader(addressToBytes(TOKEN_PROGRAM_ID), assetBytes('spl_token-3.5.0.so'), addressToBytes(BPF_LOADER_2_ID));
    svm.addProgramWithLoader(addressToBytes(ASSOCIATED_TOKEN_PROGRAM_ID), assetBytes('spl_associated_token_account-1.1.1.so'), addressToBytes(BPF_LOADER_2_ID));
    this.svm = svm;
  }

  /** The fee the engine charges (its lamports per signature is Agave's default); the executor compensates it. */
  static readonly LAMPORTS_PER_SIGNATURE = 5000;

  private toEngine(a: Account): EngineAccount {
    const rentEpoch = a.rentEpoch >= RENT_EXEMPT_RENT_EPOCH ? U64_MAX : BigInt(a.rentEpoch);
    return new this.binding.Account(BigInt(a.lamports), a.data, addressBytes(a.owner), a.executable, rentEpoch);
  }

  /** Copies the bank's account (null: absent, an empty account) into the engine, unless it holds that very one. */
  private setRaw(address: Address, a: Account | null): void {
    if (this.held.get(address) === a && this.held.has(address)) return;
    // Bounded: the objects remembered would otherwise keep replaced accounts alive.
    if (this.held.size >= HELD_LIMIT) this.held.clear();
    if (a === null) this.svm.setAccount(addressBytes(address), new this.binding.Account(0n, new Uint8Array(0), SYSTEM_BYTES, false, 0n));
    else this.svm.setAccount(addressBytes(address), this.toEngine(a));
    this.held.set(address, a);
  }

  private setEmpty(address: Address): void {
    this.setRaw(address, null);
  }

  /** Sets the engine's sysvars from the bank's (only what changed since the last transaction). */
  setSysvars(s: Sysvars): void {
    if (this.sysvarsSet === s) return;
    const c = s.clock;
    const clockKey = `${c.slot}/${c.unixTimestamp}/${c.epoch}/${c.epochStartTimestamp}/${c.leaderScheduleEpoch}`;
    const b = this.binding;
    if (clockKey !== this.clockKey) {
      this.svm.warpToSlot(BigInt(c.slot));
      this.svm.setClock(new b.Clock(BigInt(c.slot), BigInt(c.epochStartTimestamp), BigInt(c.epoch), BigInt(c.leaderScheduleEpoch), BigInt(c.unixTimestamp)));
      this.clockKey = clockKey;
    }
    const prev = this.sysvarsSet;
    if (!prev || prev.rent !== s.rent) this.svm.setRent(new b.Rent(BigInt(s.rent.lamportsPerByteYear), s.rent.exemptionThreshold, s.rent.burnPercent));
    const e = s.epochSchedule;
    if (!prev || prev.epochSchedule !== e) {
      this.svm.setEpochSchedule(new b.EpochSchedule(BigInt(e.slotsPerEpoch), BigInt(e.leaderScheduleSlotOffset), e.warmup, BigInt(e.firstNormalEpoch), BigInt(e.firstNormalSlot)));
    }
    if (!prev || prev.slotHashes !== s.slotHashes) this.svm.setSlotHashes(s.slotHashes.map(([slot, hash]) => ({ slot: BigInt(slot), hash })));
    if (!prev || prev.stakeHistory !== s.stakeHistory) {
      const history = new b.StakeHistory();
      for (const [epoch, entry] of s.stakeHistory ?? []) history.add(BigInt(epoch), new b.StakeHistoryEntry(BigInt(entry.effective), BigInt(entry.activating), BigInt(entry.deactivating)));
      this.svm.setStakeHistory(history);
    }
    this.sysvarsSet = s;
  }

  /**
   * Copies `addresses` from the bank into the engine (an absent account as an empty one), with the
   * programdata of every upgradeable program among them. `skip` are addresses the engine serves itself
   * (builtins, sysvars). `slot` is the bank's, for the one-slot delay.
   */
  load(addresses: readonly Address[], read: ReadAccount, skip: (address: Address) => boolean, slot: number): void {
    const programs: Array<[Address, Account]> = [];
    for (const address of addresses) {
      if (skip(address)) continue;
      const a = read(address);
      if (a?.executable) programs.push([address, a]);
      else {
        if (this.programs.delete(address)) this.setEmpty(address); // a program no longer there
        this.setRaw(address, a);
      }
    }
    for (const [address, a] of programs) this.loadProgram(address, a, read, slot);
  }

  private loadProgram(address: Address, account: Account, read: ReadAccount, slot: number): void {
    const stamp = this.programs.get(address);
    // The very program and programdata accounts it was compiled from (bank accounts are replaced, never changed), deployed before this slot.
    if (stamp?.kind === 'compiled' && stamp.upgradeable) {
      const known = stamp.upgradeable;
      if (known.program === account && known.deployedSlot < slot && read(known.programData) === stamp.from) return this.setRaw(known.programData, stamp.from);
    }
    const upgradeable = upgradeableProgramState(account, read, slot);
    if (upgradeable) {
      const pd = read(upgradeable.programData);
      if (upgradeable.runnable) {
        const via: UpgradeableStamp = { program: account, programData: upgradeable.programData, deployedSlot: upgradeable.deployedSlot };
        if (stamp?.kind === 'compiled' && (stamp.from === pd || sameBytes(stamp.bytes, pd!.data))) {
          stamp.from = pd!;
          stamp.upgradeable = via;
          return this.setRaw(upgradeable.programData, pd);
        }
        this.setRaw(upgradeable.programData, pd);
        this.setProgram(address, account, { kind: 'compiled', bytes: pd!.data.slice(), from: pd!, upgradeable: via });
      } else {
        if (stamp?.kind !== 'notDeployed') {
          this.setEmpty(upgradeable.programData);
          this.setProgram(address, account, { kind: 'notDeployed' });
        }
        this.setRaw(upgradeable.programData, pd);
      }
      return;
    }
    // A program of BPF Loader 2 or 1 holds its ELF itself.
    if (stamp?.kind === 'compiled' && (stamp.from === account || sameBytes(stamp.bytes, account.data))) return;
    this.setProgram(address, account, { kind: 'compiled', bytes: account.data.slice(), from: account });
  }

  private setProgram(address: Address, account: Account, stamp: ProgramStamp): void {
    try {
      // Setting an executable account is what compiles it: always set, even the object the engine holds.
      this.held.delete(address);
      this.setRaw(address, account);
      this.programs.set(address, stamp);
    } catch {
      // An ELF the engine refuses (a loader-2 account set by hand): Agave reports it as not deployed,
      // and so does the engine for a program whose programdata does not exist.
      const missing = programDataAddress(address);
      this.setEmpty(missing);
      this.svm.setAccount(addressBytes(address), new this.binding.Account(BigInt(account.lamports), encodeUpgradeableState({ kind: 'program', programData: missing }), UPGRADEABLE_BYTES, true, 0n));
      this.held.delete(address);
      this.programs.set(address, { kind: 'notDeployed' });
    }
  }

  /** Sets an account as is (the fee payer with the engine's fee added back). */
  setAccount(address: Address, account: Account): void {
    this.setRaw(address, account);
  }

  /** Runs the transaction (its wire bytes) on the engine, keeping nothing. */
  simulate(wire: Uint8Array): EngineRun {
    const r = this.svm.simulateVersionedTransaction(wire);
    const failed = r instanceof this.binding.FailedTransactionMetadata;
    const meta = r.meta();
    const rd = meta.returnData();
    const rdData = rd.data();
    const postAccounts = new Map<Address, Account>();
    if (!failed) {
      for (const pa of (r as InstanceType<LiteSvmBinding['SimulatedTransactionInfo']>).postAccounts()) {
        const a = pa.account();
        const rentEpoch = a.rentEpoch();
        postAccounts.set(addressAt(pa.address), {
          lamports: Number(a.lamports()),
          data: new Uint8Array(a.data()),
          owner: addressAt(a.owner()),
          executable: a.executable(),
          rentEpoch: rentEpoch === U64_MAX ? RENT_EXEMPT_RENT_EPOCH : Number(rentEpoch),
        });
      }
    }
    return {
      ok: !failed,
      err: failed ? (r as InstanceType<LiteSvmBinding['FailedTransactionMetadata']>).err() : null,
      logs: meta.logs(),
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      innerInstructions: meta.innerInstructions().map((list) =>
        list.map((inner) => {
          const ix = inner.instruction();
          return { programIdIndex: ix.programIdIndex(), accounts: Array.from(ix.accounts()), data: new Uint8Array(ix.data()), stackHeight: inner.stackHeight() };
        }),
      ),
      returnData: rdData.length === 0 ? null : { programId: addressAt(rd.programId()), data: new Uint8Array(rdData) },
      postAccounts,
    };
  }
}
