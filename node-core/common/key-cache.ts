/**
 * 32-byte keys to base-58 addresses and back, cached (bounded). Keys are base-58 text everywhere in
 * the node, and some paths convert the same few again and again (a token instruction's account
 * layouts, the sBPF engine's accounts on the way in and out): base-58 is then most of their cost.
 */
import { BoundedMap } from './bounded-map.ts';
import { addressToBytes, bytesToAddress, type Address } from './pubkey.ts';

const CACHE_LIMIT = 65_536;
const addressOfKey = new BoundedMap<string, Address>(CACHE_LIMIT);
const bytesOfAddress = new BoundedMap<Address, Uint8Array>(CACHE_LIMIT);

/** The address of the 32 bytes at `at` in `b`. */
export function addressAt(b: Uint8Array, at = 0): Address {
  const raw = b.subarray(at, at + 32);
  const id = Buffer.from(raw.buffer, raw.byteOffset, 32).toString('latin1');
  let address = addressOfKey.get(id);
  if (address === undefined) addressOfKey.set(id, (address = bytesToAddress(raw)));
  return address;
}

/** The 32 bytes of an address: shared, so callers copy them and never write into them. */
export function addressBytes(address: Address): Uint8Array {
  let bytes = bytesOfAddress.get(address);
  if (bytes === undefined) bytesOfAddress.set(address, (bytes = addressToBytes(address)));
  return bytes;
}
