/**
 * What a program account says for a person: its loader, upgradeable or final, its ProgramData's
 * deployment slot, upgrade authority and size. The layouts are decoded by the node (jsonParsed); the
 * reads are in program-reads.ts.
 */

export const UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
export const BPF_LOADER_2 = 'BPFLoader2111111111111111111111111111111111';
export const BPF_LOADER_1 = 'BPFLoader1111111111111111111111111111111111';
export const LOADER_V4 = 'LoaderV411111111111111111111111111111111111';
export const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
/** Pubkey::default(): solana-test-validator's authority for `--bpf-program` and `none`; no one can sign for it. */
export const DEFAULT_PUBKEY = '11111111111111111111111111111111';
/** ProgramData's bytes before the ELF: tag, slot, Option tag, authority. */
export const PROGRAMDATA_METADATA_SIZE = 45;

const LOADER_NAMES: Record<string, string> = {
  [UPGRADEABLE_LOADER]: 'BPF Upgradeable Loader',
  [BPF_LOADER_2]: 'BPF Loader 2',
  [BPF_LOADER_1]: 'BPF Loader (deprecated)',
  [LOADER_V4]: 'Loader v4',
  [NATIVE_LOADER]: 'Native Loader',
};

export const isLoader = (owner: string) => Object.hasOwn(LOADER_NAMES, owner);
export const loaderName = (owner: string) => LOADER_NAMES[owner] ?? owner;

export type ProgramKind = 'upgradeable' | 'final' | 'builtin' | 'closed';

export interface ProgramView {
  address: string;
  loader: string;
  kind: ProgramKind;
  /** Why it is final, or other notes worth a line. */
  note: string | null;
  programData: string | null;
  /** The upgrade authority; null once final (None, or Pubkey::default() no one can sign for). */
  authority: string | null;
  /** The authority as stored (Pubkey::default() included), null when None. */
  storedAuthority: string | null;
  lastDeploySlot: number | null;
  /** The bytes the ELF has: ProgramData's size less its metadata, or a BPF Loader 2 account's size. */
  elfSize: number | null;
}

/** What a program account and (for an upgradeable one) its ProgramData account say, for display. */
export function describeProgram(address: string, account: any, programData: any | null): ProgramView {
  const owner: string = account.owner;
  const base = { address, loader: owner, note: null, programData: null, authority: null, storedAuthority: null, lastDeploySlot: null, elfSize: null };
  const parsed = !Array.isArray(account.data) ? account.data?.parsed : undefined;
  if (owner === UPGRADEABLE_LOADER && parsed?.type === 'program') {
    const pdAddress: string = parsed.info.programData;
    const pd = programData && !Array.isArray(programData.data) ? programData.data.parsed : undefined;
    if (!pd || pd.type !== 'programData') {
      return { ...base, kind: 'closed', programData: pdAddress, note: 'Its ProgramData account is gone (the program was closed): it can no longer be invoked.' };
    }
    const stored: string | null = pd.info.authority;
    const final = stored === null || stored === DEFAULT_PUBKEY;
    return {
      ...base,
      kind: final ? 'final' : 'upgradeable',
      note: stored === DEFAULT_PUBKEY ? `Its upgrade authority is ${DEFAULT_PUBKEY} (the default address, as solana-test-validator's --bpf-program and "none" set it), which no one can sign for.` : null,
      programData: pdAddress,
      authority: final ? null : stored,
      storedAuthority: stored,
      lastDeploySlot: Number(pd.info.slot),
      elfSize: Math.max(Number(programData.data.space) - PROGRAMDATA_METADATA_SIZE, 0),
    };
  }
  if (owner === NATIVE_LOADER) return { ...base, kind: 'builtin', note: 'A builtin program of the runtime.' };
  if (owner === BPF_LOADER_2 || owner === BPF_LOADER_1) {
    const size = Array.isArray(account.data) ? atob(account.data[0]).length : Number(account.data?.space ?? 0);
    return { ...base, kind: 'final', note: `${loaderName(owner)} programs cannot be upgraded.`, elfSize: size };
  }
  return { ...base, kind: 'final', note: null };
}
