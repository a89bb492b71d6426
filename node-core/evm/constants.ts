/**
 * Ids, addresses and parameters of the EVM space. Ids follow the Velas chain, so its tools and docs
 * apply (shared/research/velas-solana-facts.md §1-2); fees, gas and the hardfork follow what today's
 * Ethereum tools expect.
 */
import type { Address } from '../common/pubkey.ts';

/** The EVM program: a builtin whose instructions carry Ethereum transactions (Velas's id). */
export const EVM_PROGRAM_ID: Address = 'EVM1111111111111111111111111111111111111111';
/** The account whose lamports back every EVM balance (Velas's id). */
export const EVM_STATE_ID: Address = 'EvmState11111111111111111111111111111111111';
/** Data of the EVM state account, as Velas creates it. */
export const EVM_STATE_DATA = new TextEncoder().encode('Evm state');

/** 1 lamport = 10^9 wei: native lamports read as wei in the EVM space. */
export const WEI_PER_LAMPORT = 1_000_000_000n;

/** The bridge's precompile, ASCII "VELAS-CHAIN" + 5 zero bytes + "SWAP" (Velas's ETH_TO_VLX_ADDR). */
export const BRIDGE_ADDRESS = '0x56454c41532d434841494e000000000053574150';
/** transferToNative(bytes32): keccak256("transferToNative(bytes32)")[0..4]. */
export const TRANSFER_TO_NATIVE_SELECTOR = 'b1d6927a';

export const CHAIN_IDS = { mainnet: 106, testnet: 111, devnet: 5705 } as const;
export type NetworkName = keyof typeof CHAIN_IDS;

/**
 * The base fee is fixed at a whole number of lamports per gas (1 gwei = 1 lamport), so the part of a
 * fee that leaves the EVM space is always whole lamports; priority fees stay in the EVM space.
 */
export const BASE_FEE_PER_GAS = 1_000_000_000n;
/** Velas's DEFAULT_GAS_LIMIT for a block; one transaction is capped lower by the hardfork (EIP-7825). */
export const BLOCK_GAS_LIMIT = 300_000_000n;
/** EIP-7825 (Osaka): the most gas one transaction may ask for. */
export const MAX_TX_GAS = 16_777_216n;
/** The hardfork the EVM runs: solc's default target today, so its default output runs. */
export const HARDFORK = 'osaka';

/** extraData of every EVM block (32 bytes, as Velas writes its own). */
export const EXTRA_DATA = new TextEncoder().encode('Isthmus EVM compatibility layer.');

/** Zero address: the blocks' miner; priority fees are credited to it, as Anvil does by default. */
export const COINBASE = '0x0000000000000000000000000000000000000000';
