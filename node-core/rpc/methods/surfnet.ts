/**
 * Surfpool's cheatcodes on the native port, with its names and param shapes (txtx/surfpool,
 * crates/core/src/rpc/surfnet_cheatcodes.rs): set an account or a token account, travel in time,
 * pause and resume the clock. Every one is behind the chain-control gate (rpc/chain-control-gate.ts).
 *
 * An account edit is written into the working bank between transactions and enters the chain with
 * its slot (chain.edit); the lamports it adds or removes move the supply's books (adjusted). Time
 * travel seals the working bank and opens the next at the target slot (epochs crossed turn as usual);
 * pausing stops slot production, and so EVM blocks.
 */
import { addressToBytes, type Address } from '../../common/pubkey.ts';
import { findProgramAddress } from '../../common/pda.ts';
import { EVM_STATE_ID } from '../../evm/constants.ts';
import type { Bank } from '../../ledger/bank.ts';
import { epochOf } from '../../ledger/epoch.ts';
import { minimumBalanceForRentExemption, MAX_PERMITTED_DATA_LENGTH, type Account } from '../../runtime/account.ts';
import {
  ACCOUNT_LEN,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  packAccount,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackAccountUnchecked,
  unpackMint,
  type AccountState,
  type TokenAccount,
} from '../../runtime/programs/token/state.ts';
import { SYSVAR_IDS } from '../../runtime/sysvars.ts';
import { gated } from '../chain-control-gate.ts';
import { withContext, type RpcContext } from '../context.ts';
import { invalidParams } from '../errors.ts';
import { address, bool, config, fail, oneOf, optional, required, u64, type Parse } from '../params.ts';
import { snapshotsOf } from '../eth/snapshots.ts';
import { getEpochInfo } from './cluster.ts';
import { method } from './method.ts';

/** Surfpool's account data: hex (a "0x" in front is taken too). */
const hexData: Parse<Uint8Array, string> = (v, name) => {
  if (typeof v !== 'string') return fail(name, 'hex data', v);
  const text = v.startsWith('0x') ? v.slice(2) : v;
  if (text.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(text)) throw invalidParams(`Invalid params: ${name}: Invalid hex data provided: expected an even number of hex digits, got ${JSON.stringify(v.slice(0, 40))}`);
  const bytes = new Uint8Array(Buffer.from(text, 'hex'));
  if (bytes.length > MAX_PERMITTED_DATA_LENGTH) throw invalidParams(`Invalid params: ${name}: ${bytes.length} bytes is over the ${MAX_PERMITTED_DATA_LENGTH}-byte account limit`);
  return bytes;
};

/** Surfpool's SetSomeAccount: a public key, or null (as the string "null" too) to clear. */
const someAccount: Parse<Address | null, string | null> = (v, name) => (v === 'null' ? null : address(v, name));

const accountUpdate = config({ lamports: u64, data: hexData, owner: address, executable: bool, rentEpoch: u64 });
const tokenAccountUpdate = config({
  amount: u64,
  delegate: someAccount,
  state: oneOf(['uninitialized', 'initialized', 'frozen'] as const),
  delegatedAmount: u64,
  closeAuthority: someAccount,
});
const timeTravelConfig = config({ absoluteEpoch: u64, absoluteSlot: u64, absoluteTimestamp: u64 });

/** An account the edits may not write: sysvars (the bank keeps them), and the EVM state account (it backs the EVM balances). */
function refuseProtected(key: Address): void {
  if (key === EVM_STATE_ID) throw invalidParams(`Invalid params: ${key} is the EVM state account: its lamports back the EVM balances; set those with anvil_setBalance on the EVM port`);
  if (SYSVAR_IDS.has(key)) throw invalidParams(`Invalid params: ${key} is a sysvar: the bank writes it`);
}

/** Writes `account` at `key` in the working bank; returns the lamports it added (negative: removed). */
function writeAccount(bank: Bank, key: Address, account: Account): number {
  const before = bank.get(key)?.lamports ?? 0;
  bank.set(key, account);
  return account.lamports - before;
}

/** surfnet_setAccount: sets the given fields of an account (a missing account starts empty, owned by the System Program). */
export const surfnet_setAccount = gated(
  'surfnet_setAccount',
  method([required('pubkey', address), required('update', accountUpdate)], async ([key, update], ctx) => {
    refuseProtected(key);
    const slot = await ctx.chain.edit((bank) => {
      const current = bank.get(key);
      const account: Account = {
        lamports: update.lamports ?? current?.lamports ?? 0,
        data: update.data ?? current?.data.slice() ?? new Uint8Array(0),
        owner: update.owner ?? current?.owner ?? '11111111111111111111111111111111',
        executable: update.executable ?? current?.executable ?? false,
        rentEpoch: update.rentEpoch ?? current?.rentEpoch ?? 0,
      };
      return { lamports: writeAccount(bank, key, account), result: bank.slot };
    });
    return withContext(slot, null);
  }),
);

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
function associatedTokenAddress(owner: Address, mint: Address, tokenProgram: Address): Address {
  return findProgramAddress([addressToBytes(owner), addressToBytes(tokenProgram), addressToBytes(mint)], ASSOCIATED_TOKEN_PROGRAM_ID).address;
}

/**
 * surfnet_setTokenAccount: sets fields of `owner`'s associated token account for `mint` (created
 * rent-exempt when missing; the mint must exist).
 */
export const surfnet_setTokenAccount = gated(
  'surfnet_setTokenAccount',
  method(
    [required('owner', address), required('mint', address), required('update', tokenAccountUpdate), optional('tokenProgram', address)],
    async ([owner, mint, update, tokenProgram = TOKEN_PROGRAM_ID], ctx) => {
      if (tokenProgram !== TOKEN_PROGRAM_ID && tokenProgram !== TOKEN_2022_PROGRAM_ID) throw invalidParams(`Invalid params: tokenProgram: ${tokenProgram} is not a token program (${TOKEN_PROGRAM_ID} or ${TOKEN_2022_PROGRAM_ID})`);
      const ata = associatedTokenAddress(owner, mint, tokenProgram);
      const slot = await ctx.chain.edit((bank) => {
        const mintAccount = bank.get(mint);
        if (!mintAccount || mintAccount.owner !== tokenProgram) throw invalidParams(`Invalid params: mint: ${mint} is not a mint of ${tokenProgram}`);
        try {
          unpackMint(mintAccount.data.subarray(0, 82));
        } catch {
          throw invalidParams(`Invalid params: mint: ${mint} holds no initialized mint`);
        }
        const current = bank.get(ata);
        const existing: TokenAccount | null = current && current.owner === tokenProgram && current.data.length >= ACCOUNT_LEN ? unpackAccountUnchecked(current.data) : null;
        const token: TokenAccount = existing ?? { mint, owner, amount: 0n, delegate: null, state: 'initialized', isNative: null, delegatedAmount: 0n, closeAuthority: null };
        if (update.amount !== undefined) token.amount = BigInt(update.amount);
        if (update.delegate !== undefined) token.delegate = update.delegate;
        if (update.state !== undefined) token.state = update.state as AccountState;
        if (update.delegatedAmount !== undefined) token.delegatedAmount = BigInt(update.delegatedAmount);
        if (update.closeAuthority !== undefined) token.closeAuthority = update.closeAuthority;
        const data = current && existing ? current.data.slice() : new Uint8Array(ACCOUNT_LEN);
        packAccount(token, data);
        const lamports = current?.lamports ?? minimumBalanceForRentExemption(ctx.chain.genesis.rent, data.length);
        const account: Account = { lamports, data, owner: tokenProgram, executable: false, rentEpoch: current?.rentEpoch ?? 0 };
        return { lamports: writeAccount(bank, ata, account), result: bank.slot };
      });
      return withContext(slot, null);
    },
  ),
);

const epochInfoNow = (ctx: RpcContext) => getEpochInfo([{ commitment: 'processed' }], ctx);

/**
 * surfnet_timeTravel: to an absolute slot, epoch (its first slot) or UNIX timestamp in milliseconds;
 * forward only. Without a config: one hour ahead, as Surfpool. Answers the EpochInfo after it.
 */
export const surfnet_timeTravel = gated(
  'surfnet_timeTravel',
  method([optional('config', timeTravelConfig)], async ([cfg], ctx) => {
    const given = Object.keys(cfg ?? {}).length;
    if (given > 1) throw invalidParams('Invalid params: config: give one of absoluteEpoch, absoluteSlot, absoluteTimestamp');
    const working = ctx.chain.bankAt('processed');
    const schedule = ctx.chain.genesis.epochSchedule;
    let to: { slot: number } | { unixTimestampMs: number };
    if (cfg?.absoluteSlot !== undefined) to = { slot: cfg.absoluteSlot };
    else if (cfg?.absoluteEpoch !== undefined) {
      const current = epochOf(schedule, working.slot).epoch;
      if (cfg.absoluteEpoch <= current) throw invalidParams(`Invalid params: epoch ${cfg.absoluteEpoch} is not after the current epoch ${current}: time travel goes forward only`);
      to = { slot: cfg.absoluteEpoch * schedule.slotsPerEpoch };
    } else to = { unixTimestampMs: cfg?.absoluteTimestamp ?? working.sysvars.clock.unixTimestamp * 1000 + 3_600_000 };
    try {
      await ctx.chain.travel(to);
    } catch (e) {
      if (e instanceof RangeError) throw invalidParams(`Invalid params: ${e.message}`);
      throw e;
    }
    return epochInfoNow(ctx);
  }),
);

/** surfnet_pauseClock: no slot (and so no EVM block) is produced until surfnet_resumeClock. */
export const surfnet_pauseClock = gated(
  'surfnet_pauseClock',
  method([], (_, ctx) => {
    ctx.chain.pauseClock();
    return epochInfoNow(ctx);
  }),
);

export const surfnet_resumeClock = gated(
  'surfnet_resumeClock',
  method([], (_, ctx) => {
    ctx.chain.resumeClock();
    return epochInfoNow(ctx);
  }),
);

/**
 * surfnet_resetNetwork: the whole chain, both spaces, back to its genesis (ledger/snapshots.ts), as
 * anvil_reset on the EVM port. Answers Surfpool's RpcResponse<()>, at the slot the chain resumed from.
 */
export const surfnet_resetNetwork = gated(
  'surfnet_resetNetwork',
  method([], async (_, ctx) => {
    await snapshotsOf(ctx).reset();
    return withContext(ctx.chain.slotAt('confirmed'), null);
  }),
);

/** The RpcResponse<()> Surfpool answers an edit with. */
export interface SurfnetEditJson {
  context: { apiVersion: string; slot: number };
  value: null;
}
export interface SurfnetEpochInfoJson {
  absoluteSlot: number;
  blockHeight: number;
  epoch: number;
  slotIndex: number;
  slotsInEpoch: number;
  transactionCount: number;
}
type Hex = string;
type AccountUpdateJson = { lamports?: number | null; data?: Hex | null; owner?: string | null; executable?: boolean | null; rentEpoch?: number | null };
type TokenAccountUpdateJson = {
  amount?: number | null;
  delegate?: string | null;
  state?: 'uninitialized' | 'initialized' | 'frozen' | null;
  delegatedAmount?: number | null;
  closeAuthority?: string | null;
};

/** Surfpool's cheatcodes as types (the table in ./index.ts is checked against them). */
export interface SurfnetApi {
  surfnet_setAccount: { args: [pubkey: string, update: AccountUpdateJson]; result: SurfnetEditJson };
  surfnet_setTokenAccount: { args: [owner: string, mint: string, update: TokenAccountUpdateJson, tokenProgram?: string | null]; result: SurfnetEditJson };
  surfnet_timeTravel: { args: [config?: { absoluteEpoch?: number | null; absoluteSlot?: number | null; absoluteTimestamp?: number | null } | null]; result: SurfnetEpochInfoJson };
  surfnet_pauseClock: { args: []; result: SurfnetEpochInfoJson };
  surfnet_resumeClock: { args: []; result: SurfnetEpochInfoJson };
  surfnet_resetNetwork: { args: []; result: SurfnetEditJson };
}
