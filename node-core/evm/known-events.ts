/**
 * Events every EVM developer meets (ERC-20, ERC-721, ERC-1155, Ownable, WETH), decoded by their
 * signature: the node has no contracts' ABIs, so a log is named only when its first topic is one of
 * these and its topics and data fit the event's inputs exactly. Anything else stays raw.
 */
import { bytesToHex } from '@ethereumjs/util';
import { keccak256 } from '../common/hash.ts';

type InputType = 'address' | 'uint256' | 'bool' | 'uint256[]';

interface Input {
  name: string;
  type: InputType;
  indexed: boolean;
}

interface KnownEvent {
  /** The standard it comes from, for the reader ("ERC-20"). */
  standard: string;
  name: string;
  inputs: Input[];
}

export interface DecodedEvent {
  standard: string;
  name: string;
  /** Its canonical signature, as keccak256 of it is the first topic: "Transfer(address,address,uint256)". */
  signature: string;
  args: Array<{ name: string; type: InputType; value: string | boolean | string[] }>;
}

const i = (name: string, type: InputType, indexed = false): Input => ({ name, type, indexed });

// ERC-20 and ERC-721 share Transfer's and Approval's signatures; the number of indexed inputs tells them apart.
const EVENTS: KnownEvent[] = [
  { standard: 'ERC-20', name: 'Transfer', inputs: [i('from', 'address', true), i('to', 'address', true), i('value', 'uint256')] },
  { standard: 'ERC-721', name: 'Transfer', inputs: [i('from', 'address', true), i('to', 'address', true), i('tokenId', 'uint256', true)] },
  { standard: 'ERC-20', name: 'Approval', inputs: [i('owner', 'address', true), i('spender', 'address', true), i('value', 'uint256')] },
  { standard: 'ERC-721', name: 'Approval', inputs: [i('owner', 'address', true), i('approved', 'address', true), i('tokenId', 'uint256', true)] },
  { standard: 'ERC-721', name: 'ApprovalForAll', inputs: [i('owner', 'address', true), i('operator', 'address', true), i('approved', 'bool')] },
  { standard: 'ERC-1155', name: 'TransferSingle', inputs: [i('operator', 'address', true), i('from', 'address', true), i('to', 'address', true), i('id', 'uint256'), i('value', 'uint256')] },
  { standard: 'ERC-1155', name: 'TransferBatch', inputs: [i('operator', 'address', true), i('from', 'address', true), i('to', 'address', true), i('ids', 'uint256[]'), i('values', 'uint256[]')] },
  { standard: 'Ownable', name: 'OwnershipTransferred', inputs: [i('previousOwner', 'address', true), i('newOwner', 'address', true)] },
  { standard: 'WETH', name: 'Deposit', inputs: [i('dst', 'address', true), i('wad', 'uint256')] },
  { standard: 'WETH', name: 'Withdrawal', inputs: [i('src', 'address', true), i('wad', 'uint256')] },
];

const signatureOf = (e: KnownEvent) => `${e.name}(${e.inputs.map((x) => x.type).join(',')})`;

const byTopic = new Map<string, KnownEvent[]>();
for (const e of EVENTS) {
  const topic = bytesToHex(keccak256(new TextEncoder().encode(signatureOf(e))));
  byTopic.set(topic, [...(byTopic.get(topic) ?? []), e]);
}

const WORD = 32;

/** One 32-byte word as the type says, or null when the word is not a valid value of it. */
function word(bytes: Uint8Array, type: Exclude<InputType, 'uint256[]'>): string | boolean | null {
  if (bytes.length !== WORD) return null;
  const value = BigInt(bytesToHex(bytes));
  if (type === 'uint256') return value.toString();
  if (type === 'bool') return value === 0n ? false : value === 1n ? true : null;
  return value >> 160n === 0n ? `0x${value.toString(16).padStart(40, '0')}` : null;
}

/** A uint256[] at `offset` into `data` (its head word), or null when it does not fit. */
function uintArray(data: Uint8Array, offset: bigint): string[] | null {
  if (offset % BigInt(WORD) !== 0n || offset + BigInt(WORD) > BigInt(data.length)) return null;
  const at = Number(offset);
  const length = BigInt(bytesToHex(data.subarray(at, at + WORD)));
  if (BigInt(at + WORD) + length * BigInt(WORD) > BigInt(data.length)) return null;
  const out: string[] = [];
  for (let k = 0; k < Number(length); k++) out.push(BigInt(bytesToHex(data.subarray(at + WORD * (k + 1), at + WORD * (k + 2)))).toString());
  return out;
}

function decodeAs(e: KnownEvent, topics: Uint8Array[], data: Uint8Array): DecodedEvent | null {
  const indexed = e.inputs.filter((x) => x.indexed);
  if (topics.length !== indexed.length + 1) return null;
  const inData = e.inputs.filter((x) => !x.indexed);
  if (data.length < inData.length * WORD) return null;
  const hasDynamic = inData.some((x) => x.type === 'uint256[]');
  if (!hasDynamic && data.length !== inData.length * WORD) return null;
  const args: DecodedEvent['args'] = [];
  let topic = 1;
  let head = 0;
  for (const input of e.inputs) {
    let value: string | boolean | string[] | null;
    if (input.indexed) value = word(topics[topic++]!, input.type as Exclude<InputType, 'uint256[]'>);
    else {
      const slot = data.subarray(head * WORD, (head + 1) * WORD);
      head++;
      value = input.type === 'uint256[]' ? uintArray(data, BigInt(bytesToHex(slot))) : word(slot, input.type);
    }
    if (value === null) return null;
    args.push({ name: input.name, type: input.type, value });
  }
  return { standard: e.standard, name: e.name, signature: signatureOf(e), args };
}

/** The known event a log is, or null. */
export function decodeKnownEvent(topics: Uint8Array[], data: Uint8Array): DecodedEvent | null {
  const candidates = topics.length > 0 ? byTopic.get(bytesToHex(topics[0]!)) : undefined;
  for (const e of candidates ?? []) {
    const decoded = decodeAs(e, topics, data);
    if (decoded) return decoded;
  }
  return null;
}
