/**
 * jsonParsed for the BPF loaders, as Agave names things: the Upgradeable Loader's accounts
 * (account-decoder's `parse_bpf_upgradeable_loader`: uninitialized, buffer, program, programData) and
 * instructions (transaction-status's `parse_bpf_upgradeable_loader`), and BPF Loader 2's `write` and
 * `finalize` (`parse_bpf_loader`).
 */
import { ByteReader } from '../../../common/bytes.ts';
import { BPF_LOADER_UPGRADEABLE_ID, decodeUpgradeableState } from '../../../runtime/programs/bpf-loader/upgradeable-state.ts';
import type { AccountParser, InstructionParser } from './types.ts';

const toBase64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/** An Option<Pubkey>'s bytes: 1 tag + 32 when Some, the tag alone when None. */
const optionalKeySize = (key: string | null) => (key === null ? 1 : 33);

/**
 * Agave's `data` starts after the serialized state: a Buffer's 37 bytes (5 with no authority), a
 * ProgramData's 45 (13 with no authority — after SetAuthority to None the old key's 32 bytes are still
 * there, and are shown as the start of the data, as Agave shows them).
 */
export const parseUpgradeableLoaderAccount: AccountParser = (_address, account) => {
  if (account.owner !== BPF_LOADER_UPGRADEABLE_ID) return null;
  const state = decodeUpgradeableState(account.data);
  const space = account.data.length;
  const result = (parsed: unknown) => ({ program: 'bpf-upgradeable-loader', parsed, space });
  switch (state.kind) {
    case 'uninitialized':
      return result({ type: 'uninitialized' });
    case 'buffer':
      return result({ type: 'buffer', info: { authority: state.authority, data: [toBase64(account.data.subarray(4 + optionalKeySize(state.authority))), 'base64'] } });
    case 'program':
      return result({ type: 'program', info: { programData: state.programData } });
    case 'programData':
      return result({
        type: 'programData',
        info: { slot: state.slot, authority: state.authority, data: [toBase64(account.data.subarray(12 + optionalKeySize(state.authority))), 'base64'] },
      });
  }
};

type Decoded =
  | { type: 'initializeBuffer' | 'upgrade' | 'setAuthority' | 'close' | 'setAuthorityChecked' | 'migrate' }
  | { type: 'write'; offset: number; bytes: Uint8Array }
  | { type: 'deployWithMaxDataLen'; maxDataLen: number }
  | { type: 'extendProgram' | 'extendProgramChecked'; additionalBytes: number };

/** UpgradeableLoaderInstruction as bincode writes it (trailing bytes allowed, as Agave's `deserialize`). */
function decodeUpgradeableInstruction(data: Uint8Array): Decoded | null {
  const r = new ByteReader(data);
  switch (r.u32()) {
    case 0:
      return { type: 'initializeBuffer' };
    case 1:
      return { type: 'write', offset: r.u32(), bytes: r.bincodeBytes() };
    case 2: {
      const len = r.u64();
      return len > BigInt(Number.MAX_SAFE_INTEGER) ? null : { type: 'deployWithMaxDataLen', maxDataLen: Number(len) };
    }
    case 3:
      return { type: 'upgrade' };
    case 4:
      return { type: 'setAuthority' };
    case 5:
      return { type: 'close' };
    case 6:
      return { type: 'extendProgram', additionalBytes: r.u32() };
    case 7:
      return { type: 'setAuthorityChecked' };
    case 8:
      return { type: 'migrate' };
    case 9:
      return { type: 'extendProgramChecked', additionalBytes: r.u32() };
    default:
      return null;
  }
}

export const parseUpgradeableLoaderInstruction: InstructionParser = (data, accounts) => {
  const ix = decodeUpgradeableInstruction(data);
  // Agave refuses an instruction without accounts before looking at its kind.
  if (!ix || accounts.length === 0) return null;
  const need = (n: number) => accounts.length >= n;
  const a = (i: number) => accounts[i]!;
  const optional = (i: number) => accounts[i] ?? null;
  switch (ix.type) {
    case 'initializeBuffer':
      return { type: 'initializeBuffer', info: accounts.length > 1 ? { account: a(0), authority: a(1) } : { account: a(0) } };
    case 'write':
      if (!need(2)) return null;
      return { type: 'write', info: { offset: ix.offset, bytes: toBase64(ix.bytes), account: a(0), authority: a(1) } };
    case 'deployWithMaxDataLen':
      if (!need(8)) return null;
      return {
        type: 'deployWithMaxDataLen',
        info: {
          maxDataLen: ix.maxDataLen,
          payerAccount: a(0),
          programDataAccount: a(1),
          programAccount: a(2),
          bufferAccount: a(3),
          rentSysvar: a(4),
          clockSysvar: a(5),
          systemProgram: a(6),
          authority: a(7),
        },
      };
    case 'upgrade':
      if (!need(7)) return null;
      return {
        type: 'upgrade',
        info: { programDataAccount: a(0), programAccount: a(1), bufferAccount: a(2), spillAccount: a(3), rentSysvar: a(4), clockSysvar: a(5), authority: a(6) },
      };
    case 'setAuthority':
      if (!need(2)) return null;
      return { type: 'setAuthority', info: { account: a(0), authority: a(1), newAuthority: optional(2) } };
    case 'setAuthorityChecked':
      if (!need(3)) return null;
      return { type: 'setAuthorityChecked', info: { account: a(0), authority: a(1), newAuthority: a(2) } };
    case 'close':
      if (!need(3)) return null;
      return { type: 'close', info: { account: a(0), recipient: a(1), authority: a(2), programAccount: optional(3) } };
    case 'extendProgram':
      if (!need(2)) return null;
      return {
        type: 'extendProgram',
        info: { additionalBytes: ix.additionalBytes, programDataAccount: a(0), programAccount: a(1), systemProgram: optional(2), payerAccount: optional(3) },
      };
    case 'extendProgramChecked':
      if (!need(3)) return null;
      return {
        type: 'extendProgramChecked',
        info: {
          additionalBytes: ix.additionalBytes,
          programDataAccount: a(0),
          programAccount: a(1),
          authority: a(2),
          systemProgram: optional(3),
          payerAccount: optional(4),
        },
      };
    case 'migrate':
      if (!need(3)) return null;
      return { type: 'migrate', info: { programDataAccount: a(0), programAccount: a(1), authority: a(2) } };
  }
};

/** BPF Loader 2's LoaderInstruction: Write { offset: u32, bytes: Vec<u8> } (0), Finalize (1). */
export const parseBpfLoaderInstruction: InstructionParser = (data, accounts) => {
  const r = new ByteReader(data);
  const tag = r.u32();
  if (accounts.length === 0) return null;
  if (tag === 0) {
    const offset = r.u32();
    const bytes = r.bincodeBytes();
    return { type: 'write', info: { offset, bytes: toBase64(bytes), account: accounts[0]! } };
  }
  if (tag === 1) {
    if (accounts.length < 2) return null;
    return { type: 'finalize', info: { account: accounts[0]! } };
  }
  return null;
};
