/**
 * 32-byte keys to base-58 addresses and back, cached (bounded). Keys are base-58 text everywhere in
 * the node, and some paths convert the same few again and again (a token instruction's account
 * layouts, the sBPF engine's accounts on the way in and out): base-58 is then most of their cost.
 */
import { BoundedMap } from './bounded-map.ts';
import { addressToBytes, bytesToAddress, tryAddressToBytes, type Address } from './pubkey.ts';

const CACHE_LIMIT = 65_536;
const bytesOfAddress = new BoundedMap<Address, Uint8Array>(CACHE_LIMIT);

/*
 * Bytes to address: a direct-mapped table indexed by a hash of the 32 bytes, each slot holding its
 * key's bytes and address (a new key in a taken slot replaces the one there). A Map keyed by the bytes
 * as text cost ~0.3 µs a lookup (a Buffer, a string and its hash); this costs ~0.08.
 */
const SLOTS = CACHE_LIMIT; // a power of two
const slotKeys = new Uint8Array(SLOTS * 32);
const slotAddresses: Array<Address | undefined> = new Array<Address | undefined>(SLOTS).fill(undefined);

/** FNV-1a over the 32 bytes, folded to a slot. */
function slotOf(b: Uint8Array, at: number): number {
  let h = 0x811c9dc5;
  for (let i = at; i < at + 32; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return (h ^ (h >>> 16)) & (SLOTS - 1);
}

function sameKey(b: Uint8Array, at: number, base: number): boolean {
  for (let i = 0; i < 32; i++) if (slotKeys[base + i] !== b[at + i]) return false;
  return true;
}

/** The address of the 32 bytes at `at` in `b`. */
export function addressAt(b: Uint8Array, at = 0): Address {
  const slot = slotOf(b, at);
  const held = slotAddresses[slot];
  if (held !== undefined && sameKey(b, at, slot * 32)) return held;
  const raw = b.subarray(at, at + 32);
  if (raw.length !== 32) return bytesToAddress(raw); // a short key's text, uncached
  slotKeys.set(raw, slot * 32);
  return (slotAddresses[slot] = bytesToAddress(raw));
}

/** The 32 bytes of an address: shared, so callers copy them and never write into them. */
export function addressBytes(address: Address): Uint8Array {
  let bytes = bytesOfAddress.get(address);
  if (bytes === undefined) bytesOfAddress.set(address, (bytes = addressToBytes(address)));
  return bytes;
}

/**
 * Whether `text` is an address (isAddress), answered from the cache for one seen before: a client
 * asking about the same accounts again and again (a wallet polling its balance) is not decoded each time.
 */
export function isCachedAddress(text: unknown): text is Address {
  if (typeof text !== 'string') return false;
  if (bytesOfAddress.get(text as Address)?.length === 32) return true;
  const bytes = tryAddressToBytes(text);
  if (bytes === null) return false;
  bytesOfAddress.set(text as Address, bytes);
  return true;
}
