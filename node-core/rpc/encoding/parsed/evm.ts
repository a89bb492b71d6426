/**
 * jsonParsed for the EVM program's instructions (node-core/evm/instruction.ts has the layout), in
 * the names and shapes of Velas's `parse_evm` (velas-chain transaction-status), program "evm":
 *
 *   evmTransaction             { evmStateAccount, relayerAccount, transaction }
 *   swapNativeToEvm            { evmStateAccount, fromNativeAccount, toEvmAccount, lamports }
 *   freeOwnership              { evmStateAccount, nativeAccount }
 *   evmBigTransactionAllocate  { evmStateAccount, storageAccount, size }
 *   evmBigTransactionWrite     { evmStateAccount, storageAccount, offset, data (base64) }
 *   evmBigTransactionExecute   { evmStateAccount, storageAccount, relayerAccount }
 *
 * `relayerAccount` is the native account that signs and pays for the carried transaction (the
 * relayer, which gets its base fee back). Where this differs from Velas:
 * - Velas called that account `bridgeAccount`; here "bridge" names only the bridge itself (the
 *   precompile and the deposit), and the account that relays is named for what it does.
 * - Every account the program reads is named, as Agave's parsers name them: `evmStateAccount`
 *   everywhere, and FreeOwnership names its account (Velas gave it no info at all).
 * - The accounts the program needs must be there (two; three for execute), else the instruction
 *   stays unparsed as Agave's check_num_accounts does; Velas left its `bridgeAccount` out instead.
 * - `transaction` is the carried transaction in today's Ethereum JSON (as eth_getTransactionByHash
 *   shows it, without the block fields; any type, with `transferToNative` on a call of the bridge)
 *   where Velas's was its legacy-only RPCTransaction. Velas's later `feeType` does not exist here.
 * A carried transaction that does not decode (bad RLP, no replay protection, a bad signature) leaves
 * the instruction unparsed, as Velas's parser does: the program refuses it too.
 */
import type { Address } from '../../../common/pubkey.ts';
import { createEvmCommon } from '../../../evm/machine.ts';
import { decodeEvmInstruction } from '../../../evm/instruction.ts';
import { claimedChainId, TransactionDecoder } from '../../../evm/transaction.ts';
import { decodedTransactionJson } from '../../eth/format.ts';
import type { InstructionParser } from './types.ts';

// u64 fields serialize as JSON numbers, as in Velas's and Agave's parsers.
const num = (v: bigint) => Number(v);

/**
 * A decoder per chain id the carried transactions claim: a parser has no node at hand, and the
 * transaction names its own chain (a chain id the node does not run makes the program refuse it,
 * not the parser). A few are kept, each with a small cache of recovered senders.
 */
const decoders = new Map<bigint, TransactionDecoder>();
const KEPT_DECODERS = 4;
const DECODER_CACHE = 1_000;

function decoderFor(raw: Uint8Array): TransactionDecoder | null {
  const chainId = claimedChainId(raw);
  if (chainId === null || chainId > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  let decoder = decoders.get(chainId);
  if (!decoder) {
    decoder = new TransactionDecoder(createEvmCommon(Number(chainId)), DECODER_CACHE);
    if (decoders.size < KEPT_DECODERS) decoders.set(chainId, decoder);
  }
  return decoder;
}

/** The carried transaction as Ethereum JSON, or null when it does not decode. */
function carriedTransaction(raw: Uint8Array): Record<string, unknown> | null {
  const decoder = decoderFor(raw);
  if (!decoder) return null;
  try {
    return decodedTransactionJson(decoder.decode(raw));
  } catch {
    return null;
  }
}

export const parseEvmInstruction: InstructionParser = (data, accounts: Address[]) => {
  // Throws on wrong or truncated data; index.ts then leaves the instruction unparsed.
  const ix = decodeEvmInstruction(data);
  if (accounts.length < (ix.kind === 'execute' ? 3 : 2)) return null;
  const evmStateAccount = accounts[0]!;
  const second = accounts[1]!;
  switch (ix.kind) {
    case 'transaction': {
      const transaction = carriedTransaction(ix.raw);
      if (!transaction) return null;
      return { type: 'evmTransaction', info: { evmStateAccount, relayerAccount: second, transaction } };
    }
    case 'swapNativeToEther':
      return { type: 'swapNativeToEvm', info: { evmStateAccount, fromNativeAccount: second, toEvmAccount: ix.evmAddress, lamports: num(ix.lamports) } };
    case 'freeOwnership':
      return { type: 'freeOwnership', info: { evmStateAccount, nativeAccount: second } };
    case 'allocate':
      return { type: 'evmBigTransactionAllocate', info: { evmStateAccount, storageAccount: second, size: num(ix.size) } };
    case 'write':
      return {
        type: 'evmBigTransactionWrite',
        info: { evmStateAccount, storageAccount: second, offset: num(ix.offset), data: Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength).toString('base64') },
      };
    case 'execute':
      return { type: 'evmBigTransactionExecute', info: { evmStateAccount, storageAccount: second, relayerAccount: accounts[2]! } };
  }
};
