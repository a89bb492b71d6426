/**
 * The validator's own votes, kept compactly. An idle block holds only the vote the validator cast on
 * its parent; stored whole (wire, meta, status, five address-index entries) it was almost all of an
 * idle slot's 1.5 KB. Everything in it but a few numbers repeats slot after slot or follows from the
 * block, and Ed25519 is deterministic, so the store keeps:
 *
 * - once per distinct shape (`vote-templates`): identity, vote account, fee, the other accounts'
 *   balances, each balance's change, logs and compute units;
 * - in the block's header record: the template, the voted slot's distance, the voted hash only when it
 *   is not the block's previous blockhash, the timestamp's distance from the block time, and the
 *   identity's balance before;
 * - in `vote-sigs`: 8 bytes per vote that find its slot by signature (getTransaction,
 *   getSignatureStatuses).
 *
 * Reads sign the message again with the identity and give back the same wire, signature and meta; the
 * address index entries of the vote's five keys are the blocks themselves. A vote is stored this way
 * only when that rebuild, made at write time, equals it exactly; any other goes in whole, as before.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Database, DatabaseOptions, RootDatabase } from 'lmdb';
import { decodeBase58, encodeBase58 } from '../common/base58.ts';
import { VOTE_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import type { Keypair } from '../keys/keypair.ts';
import { decodeVoteInstruction } from '../runtime/programs/vote/instruction.ts';
import { voteTransaction, type Voter, type VotedBlock } from '../runtime/programs/vote/vote-transaction.ts';
import { SYSVAR_CLOCK_ID, SYSVAR_SLOT_HASHES_ID } from '../runtime/sysvars.ts';
import { parseTransaction } from '../runtime/wire.ts';
import type { Reward, StoredTransaction, TransactionStatusMeta } from './store.ts';

/** [identity, vote account, fee, balances of the keys after the identity, each key's balance change, logs, compute units] */
export type VoteTemplate = [Address, Address, number, number[], number[], string[] | null, number];

/**
 * [template id, slot − voted slot, voted blockhash (null: the block's previous blockhash),
 * block time − timestamp (null: the vote has no timestamp), the identity's balance before]
 */
export type CompactVote = [number, number, Uint8Array | null, number | null, number];

/** What a vote is rebuilt against: the block that holds it. */
export interface VoteBlock {
  slot: number;
  blockTime: number;
  previousBlockhash: string;
}

/** A vote split into its shape and its own numbers, or null when it is not a plain own-vote. The caller checks the rebuild. */
export function splitVote(tx: StoredTransaction, block: VoteBlock): { template: VoteTemplate; vote: [number, Uint8Array | null, number | null, number] } | null {
  const m = tx.meta;
  if (tx.memo !== null || m.err !== null || m.returnData !== undefined) return null;
  if (m.preTokenBalances.length || m.postTokenBalances.length || m.innerInstructions.length || m.loadedAddresses.writable.length || m.loadedAddresses.readonly.length) return null;
  let parsed;
  try {
    parsed = parseTransaction(tx.wire);
  } catch {
    return null;
  }
  const { message } = parsed;
  if (message.version !== 'legacy' || message.accountKeys.length !== 5 || message.instructions.length !== 1) return null;
  if (m.preBalances.length !== 5 || m.postBalances.length !== 5) return null;
  const ix = message.instructions[0]!;
  if (message.accountKeys[ix.programIdIndex] !== VOTE_PROGRAM_ID) return null;
  let decoded;
  try {
    decoded = decodeVoteInstruction(ix.data);
  } catch {
    return null;
  }
  if (decoded.type !== 'vote' || decoded.vote.slots.length !== 1) return null;
  const voted = decoded.vote;
  if (voted.hash !== message.recentBlockhash || !Number.isSafeInteger(voted.timestamp ?? 0)) return null;
  const template: VoteTemplate = [
    message.accountKeys[0]!,
    message.accountKeys[1]!,
    m.fee,
    m.preBalances.slice(1),
    m.postBalances.map((post, i) => post - m.preBalances[i]!),
    m.logMessages,
    m.computeUnitsConsumed,
  ];
  const hash = voted.hash === block.previousBlockhash ? null : decodeBase58(voted.hash);
  return { template, vote: [block.slot - voted.slots[0]!, hash, voted.timestamp === null ? null : block.blockTime - voted.timestamp, m.preBalances[0]!] };
}

/** What a rebuild needs of a signed vote: voteTransaction, or a memo of it (SignedVotes). */
type CastVote = (voter: Voter, voted: VotedBlock) => { id: string; wire: Uint8Array; message: { accountKeys: readonly Address[] } };

/** The block a compact vote in `block` voted on. */
function votedBlock(vote: CompactVote, block: VoteBlock): VotedBlock {
  const [, slotDistance, hash, timestampDistance] = vote;
  return {
    slot: block.slot - slotDistance,
    blockhash: hash === null ? block.previousBlockhash : encodeBase58(hash),
    blockTime: timestampDistance === null ? null : block.blockTime - timestampDistance,
  };
}

/** The vote exactly as the node produced it, from its template, its own numbers and the identity's key. */
export function rebuildVote(template: VoteTemplate, vote: CompactVote, block: VoteBlock, identity: Keypair, cast: CastVote = voteTransaction): StoredTransaction {
  const [, voteAccount, fee, otherBalances, changes, logMessages, computeUnitsConsumed] = template;
  const identityBalance = vote[4];
  const tx = cast({ identity, voteAccount }, votedBlock(vote, block));
  const preBalances = [identityBalance, ...otherBalances];
  const meta: TransactionStatusMeta = {
    err: null,
    fee,
    preBalances,
    postBalances: preBalances.map((b, i) => b + changes[i]!),
    logMessages: logMessages === null ? null : [...logMessages],
    computeUnitsConsumed,
    preTokenBalances: [],
    postTokenBalances: [],
    innerInstructions: [],
    loadedAddresses: { writable: [], readonly: [] },
  };
  return { signature: tx.id, wire: tx.wire, meta, accountKeys: [...tx.message.accountKeys], memo: null };
}

/** Signed votes remembered, the least recently used dropped first: the 300 the status cache reads, with room for a few thousand slots written between two reads. */
const SIGNED_VOTES_KEPT = 4096;

/**
 * The newest votes signed, by what their bytes follow from. Building and signing a vote again costs
 * about half a millisecond; the newest 300 blocks' votes are rebuilt at each start and revert (the
 * status cache) and by whoever reads recent blocks, and each was built when it was written.
 */
class SignedVotes {
  private readonly byInputs = new Map<string, { id: string; wire: Uint8Array; accountKeys: readonly Address[] }>();

  readonly cast: CastVote = (voter, voted) => {
    const signed = this.signed(voter, voted);
    // A copy of the bytes: the caller owns the transaction it is given.
    return { id: signed.id, wire: signed.wire.slice(), message: { accountKeys: signed.accountKeys } };
  };

  /** The vote's signature (its transaction id), as `cast` would give it. */
  signature(voter: Voter, voted: VotedBlock): string {
    return this.signed(voter, voted).id;
  }

  private signed(voter: Voter, voted: VotedBlock) {
    const key = `${voter.identity.address} ${voter.voteAccount} ${voted.slot} ${voted.blockhash} ${voted.blockTime}`;
    let signed = this.byInputs.get(key);
    if (signed) {
      this.byInputs.delete(key); // used last: dropped last
    } else {
      const tx = voteTransaction(voter, voted);
      signed = { id: tx.id, wire: tx.wire, accountKeys: tx.message.accountKeys };
      if (this.byInputs.size >= SIGNED_VOTES_KEPT) this.byInputs.delete(this.byInputs.keys().next().value!);
    }
    this.byInputs.set(key, signed);
    return signed;
  }
}

/** A stored transaction as plain values (a decoded record reads its signature and keys lazily). */
const plainTx = (tx: StoredTransaction) => ({ signature: tx.signature, wire: tx.wire, meta: tx.meta, accountKeys: [...new Set(tx.accountKeys)], memo: tx.memo });

const SIG_ENTRY = 8;
/** Slots are kept as u32 in the signature index; a vote in a later slot is stored whole. */
const MAX_COMPACT_SLOT = 0xffff_ffff;

/**
 * The `vote-sigs` value: the signature's first 4 bytes, then the slot (u32 BE), all under one key: one
 * sorted run of fixed-size values, looked up by range, with no per-key overhead.
 */
const SIGS_KEY = 0;
function sigEntry(signature: Uint8Array, slot: number): Uint8Array {
  const out = new Uint8Array(SIG_ENTRY);
  out.set(signature.subarray(0, 4));
  new DataView(out.buffer).setUint32(4, slot);
  return out;
}

/** The templates, the signature index, and the keys the votes are signed again with. */
export class OwnVotes {
  private readonly templates: Database<VoteTemplate, number>;
  private readonly sigs: Database<Uint8Array, number>;
  private readonly byId = new Map<number, VoteTemplate>();
  private readonly byShape = new Map<string, number>();
  /** Addresses of the stored templates' votes, each with the templates whose votes name it. */
  private readonly addressTemplates = new Map<Address, Set<number>>();
  private readonly signers = new Map<Address, Keypair>();
  private readonly signed = new SignedVotes();

  constructor(root: RootDatabase) {
    this.templates = root.openDB('vote-templates', {});
    // Raw fixed-size values (LMDB DUPFIXED packs them without per-entry headers); see DuplicateAddressIndex for the encoder.
    const encoder = { encode: (v: Uint8Array) => v, decode: (b: Uint8Array, end: number) => b.slice(0, end) };
    this.sigs = root.openDB<Uint8Array, number>('vote-sigs', { dupSort: true, dupFixed: true, encoder } as DatabaseOptions);
    this.load();
  }

  /** Reads the templates again (after a write transaction that added one was aborted). */
  load(): void {
    this.byId.clear();
    this.byShape.clear();
    this.addressTemplates.clear();
    for (const { key, value } of this.templates.getRange({})) this.remember(key, value);
  }

  /** Removes every template and signature entry, in the open write transaction (a chain reset). */
  clear(): void {
    this.templates.clearSync();
    this.sigs.clearSync();
    this.load();
  }

  /** Lets votes signed by `identity` be stored compactly, and read back. */
  addSigner(identity: Keypair): void {
    this.signers.set(identity.address, identity);
  }

  /**
   * In the open write transaction: the compact form of `tx` (written at index 0 of `block`) when its
   * rebuild equals it exactly, with its template and signature entry written; otherwise null.
   */
  compact(tx: StoredTransaction, block: VoteBlock): CompactVote | null {
    if (block.slot > MAX_COMPACT_SLOT) return null;
    const split = splitVote(tx, block);
    if (!split) return null;
    const identity = this.signers.get(split.template[0]);
    if (!identity) return null;
    const shape = JSON.stringify(split.template);
    const known = this.byShape.get(shape);
    const id = known ?? (this.lastTemplateId() ?? -1) + 1;
    const vote: CompactVote = [id, ...split.vote];
    if (!isDeepStrictEqual(plainTx(rebuildVote(split.template, vote, block, identity, this.signed.cast)), plainTx(tx))) return null;
    if (known === undefined) {
      this.templates.putSync(id, split.template);
      this.remember(id, split.template);
    }
    this.sigs.putSync(SIGS_KEY, sigEntry(tx.wire.subarray(1, 65), block.slot));
    return vote;
  }

  rebuild(vote: CompactVote, block: VoteBlock): StoredTransaction {
    const { template, identity } = this.signerOf(vote, block);
    return rebuildVote(template, vote, block, identity, this.signed.cast);
  }

  /** The signature of the vote `rebuild` gives, without building the rest of it (nor signing it again when it was lately). */
  signature(vote: CompactVote, block: VoteBlock): string {
    const { template, identity } = this.signerOf(vote, block);
    return this.signed.signature({ identity, voteAccount: template[1] }, votedBlock(vote, block));
  }

  private signerOf(vote: CompactVote, block: VoteBlock): { template: VoteTemplate; identity: Keypair } {
    const template = this.byId.get(vote[0]);
    if (!template) throw new Error(`the ledger's vote in slot ${block.slot} names template ${vote[0]}, which it does not hold`);
    const identity = this.signers.get(template[0]);
    if (!identity) throw new Error(`the ledger's vote in slot ${block.slot} is stored compactly and is rebuilt with its identity's key (${template[0]}), which this store was not given`);
    return { template, identity };
  }

  /** The fee reward of the block's leader when it is the vote's identity, as a block with only its vote has. */
  leaderFee(vote: CompactVote, lamports: number): Reward {
    const template = this.byId.get(vote[0]);
    if (!template) throw new Error(`a stored vote names template ${vote[0]}, which the ledger does not hold`);
    return { pubkey: template[0], lamports, postBalance: vote[4] + template[4][0]! + lamports, rewardType: 'Fee', commission: null };
  }

  /** The lamports of `rewards` when they are exactly leaderFee's reward (so the header keeps only them). */
  leaderFeeOf(vote: CompactVote, rewards: readonly Reward[]): number | undefined {
    if (rewards.length !== 1) return undefined;
    const reward = rewards[0]!;
    return isDeepStrictEqual(this.leaderFee(vote, reward.lamports), reward) ? reward.lamports : undefined;
  }

  /** In the open write transaction: removes the signature entry of the vote of `block`. */
  remove(vote: CompactVote, block: VoteBlock): void {
    this.removeSignature(decodeBase58(this.rebuild(vote, block).signature), block.slot);
  }

  /** remove, given the vote's signature bytes (rebuilding a vote signs it again, which costs far more). */
  removeSignature(signature: Uint8Array, slot: number): void {
    this.sigs.removeSync(SIGS_KEY, sigEntry(signature, slot));
  }

  /** Slots whose compact vote may have this signature (each to be rebuilt and compared). */
  candidateSlots(signature: Uint8Array): number[] {
    if (signature.length !== 64) return [];
    const low = sigEntry(signature, 0);
    const high = sigEntry(signature, MAX_COMPACT_SLOT);
    const slots: number[] = [];
    for (const v of this.sigs.getValues(SIGS_KEY, { start: low, end: high, inclusiveEnd: true } as never)) {
      slots.push(new DataView(v.buffer, v.byteOffset, v.byteLength).getUint32(4));
    }
    return slots;
  }

  /** Whether the votes of template `id` name `address`. */
  names(id: number, address: Address): boolean {
    return this.addressTemplates.get(address)?.has(id) ?? false;
  }

  /** Whether any stored template's votes name `address` (only then does an address scan look at the blocks). */
  namesAny(address: Address): boolean {
    return this.addressTemplates.has(address);
  }

  private lastTemplateId(): number | undefined {
    for (const key of this.templates.getKeys({ reverse: true, limit: 1 })) return key;
    return undefined;
  }

  private remember(id: number, template: VoteTemplate): void {
    this.byId.set(id, template);
    this.byShape.set(JSON.stringify(template), id);
    // The keys every vote of the template names (voteTransaction's accounts).
    for (const address of [template[0], template[1], SYSVAR_SLOT_HASHES_ID, SYSVAR_CLOCK_ID, VOTE_PROGRAM_ID]) {
      let ids = this.addressTemplates.get(address);
      if (!ids) this.addressTemplates.set(address, (ids = new Set()));
      ids.add(id);
    }
  }
}
