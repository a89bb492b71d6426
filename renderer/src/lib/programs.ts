/** Names of the programs and sysvars a person meets on this chain. */
export const PROGRAM_NAMES: Record<string, string> = {
  '11111111111111111111111111111111': 'System Program',
  ComputeBudget111111111111111111111111111111: 'Compute Budget Program',
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: 'Token Program',
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: 'Token-2022 Program',
  ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL: 'Associated Token Account Program',
  MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr: 'Memo Program v2',
  Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo: 'Memo Program v1',
  EVM1111111111111111111111111111111111111111: 'EVM Program',
  EvmState11111111111111111111111111111111111: 'EVM State',
  Vote111111111111111111111111111111111111111: 'Vote Program',
  Stake11111111111111111111111111111111111111: 'Stake Program',
  BPFLoaderUpgradeab1e11111111111111111111111: 'BPF Upgradeable Loader',
  SysvarC1ock11111111111111111111111111111111: 'Sysvar: Clock',
  SysvarRent111111111111111111111111111111111: 'Sysvar: Rent',
  SysvarRecentB1ockHashes11111111111111111111: 'Sysvar: Recent Blockhashes',
  SysvarEpochSchedu1e111111111111111111111111: 'Sysvar: Epoch Schedule',
  SysvarFees111111111111111111111111111111111: 'Sysvar: Fees',
  SysvarS1otHashes111111111111111111111111111: 'Sysvar: Slot Hashes',
  SysvarStakeHistory1111111111111111111111111: 'Sysvar: Stake History',
  SysvarS1otHistory11111111111111111111111111: 'Sysvar: Slot History',
  SysvarLastRestartS1ot1111111111111111111111: 'Sysvar: Last Restart Slot',
  Sysvar1nstructions1111111111111111111111111: 'Sysvar: Instructions',
};

export const programName = (id: string) => PROGRAM_NAMES[id] ?? null;
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const VOTE_PROGRAM_ID = 'Vote111111111111111111111111111111111111111';

/** The EVM transaction hashes a native transaction's logs name (`Program log: EVM transaction 0x…`). */
export function evmHashesInLogs(logs: readonly string[] | null | undefined): string[] {
  const out: string[] = [];
  for (const l of logs ?? []) {
    const m = /EVM transaction (0x[0-9a-fA-F]{64})/.exec(l);
    if (m) out.push(m[1]!.toLowerCase());
  }
  return out;
}
