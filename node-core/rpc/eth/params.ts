/** Parameter parsers of the Ethereum JSON-RPC: hex quantities and data, addresses, block tags, call objects. */
import type { Hex } from '../../evm/records.ts';
import { config, fail, type Parse } from '../params.ts';

const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/;
const DATA = /^0x([0-9a-fA-F]{2})*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HASH = /^0x[0-9a-fA-F]{64}$/;

/** A hex quantity ("0x0", "0x1f"); leading zeros are tolerated as geth tolerates them in inputs. */
export const quantity: Parse<bigint> = (v, name) =>
  typeof v === 'string' && (QUANTITY.test(v) || /^0x[0-9a-fA-F]+$/.test(v)) ? BigInt(v) : fail(name, 'a hex quantity such as "0x1"', v);

/** A quantity that must fit a JS number (block numbers, counts). */
export const smallQuantity: Parse<number> = (v, name) => {
  const n = typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : quantity(v, name);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : fail(name, 'a quantity below 2^53', v);
};

// new Uint8Array(buffer) copies in one go (Uint8Array.from walked the Buffer's iterator: ~5 µs per eth_call).
export const data: Parse<Uint8Array> = (v, name) =>
  typeof v === 'string' && DATA.test(v) ? new Uint8Array(Buffer.from(v.slice(2), 'hex')) : fail(name, 'hex data such as "0x00ff"', v);

export const ethAddress: Parse<Hex> = (v, name) => (typeof v === 'string' && ADDRESS.test(v) ? (v.toLowerCase() as Hex) : fail(name, 'a 20-byte hex address', v));

export const hash32: Parse<Hex> = (v, name) => (typeof v === 'string' && HASH.test(v) ? (v.toLowerCase() as Hex) : fail(name, 'a 32-byte hex hash', v));

export type BlockTag = 'latest' | 'pending' | 'safe' | 'finalized' | 'earliest';
export type BlockSelector = { tag: BlockTag } | { number: number } | { hash: Hex; requireCanonical?: boolean };

const TAGS: readonly string[] = ['latest', 'pending', 'safe', 'finalized', 'earliest'];

/** A block number, a tag, or EIP-1898's {blockNumber} / {blockHash, requireCanonical}. */
export const blockSelector: Parse<BlockSelector> = (v, name) => {
  if (typeof v === 'string' && TAGS.includes(v)) return { tag: v as BlockTag };
  // geth's BlockNumberOrHash: a 32-byte hex string is a block hash.
  if (typeof v === 'string' && v.length === 66 && v.startsWith('0x')) return { hash: hash32(v, name) };
  if (typeof v === 'string' && v.startsWith('0x')) return { number: smallQuantity(v, name) };
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (o.blockHash !== undefined) return { hash: hash32(o.blockHash, `${name}.blockHash`) };
    if (o.blockNumber !== undefined) return blockSelector(o.blockNumber, `${name}.blockNumber`);
  }
  return fail(name, 'a block number, "latest", "pending", "safe", "finalized", "earliest", a block hash or {blockHash}', v);
};

export const accessList: Parse<Array<{ address: Hex; storageKeys: Hex[] }>> = (v, name) => {
  if (!Array.isArray(v)) return fail(name, 'an access list', v);
  return v.map((item, i) => {
    const o = config({ address: ethAddress, storageKeys: (k, n) => (Array.isArray(k) ? k.map((x, j) => hash32(x, `${n}[${j}]`)) : fail(n, 'an array', k)) })(item, `${name}[${i}]`);
    return { address: o.address ?? fail(`${name}[${i}].address`, 'an address', undefined), storageKeys: o.storageKeys ?? [] };
  });
};

/** The transaction object of eth_call, eth_estimateGas and eth_sendTransaction. */
export const callObject = config({
  from: ethAddress,
  to: ethAddress,
  gas: quantity,
  gasPrice: quantity,
  maxFeePerGas: quantity,
  maxPriorityFeePerGas: quantity,
  value: quantity,
  data,
  input: data,
  nonce: quantity,
  type: quantity,
  chainId: quantity,
  accessList,
});
export type CallObject = ReturnType<typeof callObject>;

/** eth_getLogs / eth_newFilter: the filter object. */
export const logFilter = config({
  fromBlock: blockSelector,
  toBlock: blockSelector,
  blockHash: hash32,
  address: (v, name) => (Array.isArray(v) ? v.map((a, i) => ethAddress(a, `${name}[${i}]`)) : [ethAddress(v, name)]),
  topics: (v, name) => {
    if (!Array.isArray(v)) return fail(name, 'an array of topics', v);
    if (v.length > 4) return fail(name, 'at most 4 topic positions', v);
    return v.map((t, i) => (t === null ? null : Array.isArray(t) ? t.map((x, j) => hash32(x, `${name}[${i}][${j}]`)) : [hash32(t, `${name}[${i}]`)]));
  },
});
export type LogFilter = ReturnType<typeof logFilter>;

/** A bigint as a hex quantity. */
export const hex = (n: bigint | number): Hex => `0x${n.toString(16)}`;
export const bytesHex = (b: Uint8Array): Hex => `0x${Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')}`;
