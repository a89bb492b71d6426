/**
 * What a search box text can be, from its shape alone: the suggestions the box lists, first the one
 * Enter takes. A 0x hash of 32 bytes may be an EVM transaction or block; the app asks the node which.
 */
import bs58 from 'bs58';

export type SearchTarget =
  | { kind: 'slot'; slot: number }
  | { kind: 'evm-block-number'; number: number }
  | { kind: 'signature'; signature: string }
  | { kind: 'address'; address: string }
  | { kind: 'evm-address'; address: string }
  | { kind: 'evm-hash'; hash: string };

function base58Length(text: string): number | null {
  try {
    return bs58.decode(text).length;
  } catch {
    return null;
  }
}

export function classify(input: string): SearchTarget[] {
  const text = input.trim();
  if (!text) return [];
  const evmPrefixed = /^(?:evm[:\s#]*|#)(\d+)$/i.exec(text);
  if (evmPrefixed) return [{ kind: 'evm-block-number', number: Number(evmPrefixed[1]) }];
  const digits = text.replace(/[,_]/g, '');
  if (/^\d+$/.test(digits) && Number.isSafeInteger(Number(digits))) {
    const n = Number(digits);
    return [
      { kind: 'slot', slot: n },
      { kind: 'evm-block-number', number: n },
    ];
  }
  if (/^0x[0-9a-fA-F]{64}$/.test(text)) return [{ kind: 'evm-hash', hash: text.toLowerCase() }];
  if (/^0x[0-9a-fA-F]{40}$/.test(text)) return [{ kind: 'evm-address', address: text.toLowerCase() }];
  if (/^[1-9A-HJ-NP-Za-km-z]+$/.test(text)) {
    const n = base58Length(text);
    if (n === 64) return [{ kind: 'signature', signature: text }];
    if (n === 32) return [{ kind: 'address', address: text }];
  }
  return [];
}

export function describe(t: SearchTarget): string {
  switch (t.kind) {
    case 'slot':
      return `Slot ${t.slot}`;
    case 'evm-block-number':
      return `EVM block ${t.number}`;
    case 'signature':
      return 'Native transaction';
    case 'address':
      return 'Native account';
    case 'evm-address':
      return 'EVM address';
    case 'evm-hash':
      return 'EVM transaction or block hash';
  }
}

/** The explorer path of a target whose page is known from its shape (not evm-hash). */
export function pathOf(t: Exclude<SearchTarget, { kind: 'evm-hash' }>): string {
  switch (t.kind) {
    case 'slot':
      return `/block/${t.slot}`;
    case 'evm-block-number':
      return `/evm/block/${t.number}`;
    case 'signature':
      return `/tx/${t.signature}`;
    case 'address':
      return `/address/${t.address}`;
    case 'evm-address':
      return `/evm/address/${t.address}`;
  }
}
