/**
 * solana-test-validator's program flags: `--bpf-program ADDRESS_OR_KEYPAIR PROGRAM.so` and
 * `--upgradeable-program ADDRESS_OR_KEYPAIR PROGRAM.so UPGRADE_AUTHORITY|none`.
 *
 * As the test validator does it (validator/src/bin/solana-test-validator.rs, test-validator/src/lib.rs):
 * both flags put an upgradeable program in place under the BPF Upgradeable Loader, never BPF Loader 2:
 * - the Program account at the address: `Program { programdata_address }` (36 bytes), executable;
 * - the ProgramData account at the PDA of [address] under the loader: `ProgramData { slot, Some(authority) }`
 *   then the ELF, not executable;
 * - lamports: the rent-exempt minimum of each account's size (at least 1), rent epoch 0;
 * - the upgrade authority: the given address or keypair's; `--bpf-program` and `none` both write
 *   `Some(11111111111111111111111111111111)` (Pubkey::default(), which no one can sign for), not None.
 * At genesis the deployment slot is 0. The test validator ignores these flags over an existing ledger;
 * this node puts the accounts in place there too, deployed at the last stored slot so that, as at
 * genesis, the program can be invoked from the first new slot on.
 *
 * Files are read and checked when the command line is parsed, so a bad flag stops the start before
 * anything is written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_PUBKEY, isAddress, type Address } from '../common/pubkey.ts';
import { readKeypairFile } from '../keys/keypair.ts';
import { MAX_PERMITTED_DATA_LENGTH, minimumBalanceForRentExemption, type Account, type RentConfig } from '../runtime/account.ts';
import {
  BPF_LOADER_UPGRADEABLE_ID,
  encodeUpgradeableState,
  PROGRAMDATA_METADATA_SIZE,
  programDataAddress,
  programDataBytes,
} from '../runtime/programs/bpf-loader/upgradeable-state.ts';

export class ProgramFlagError extends Error {}

/** A program to put in place at start, its files already read and checked. */
export interface ProgramToLoad {
  /** The flag that asked for it, for messages: `--bpf-program` or `--upgradeable-program`. */
  flag: '--bpf-program' | '--upgradeable-program';
  programId: Address;
  /** The ELF, as read from PROGRAM.so. */
  elf: Uint8Array;
  /** The ProgramData's upgrade authority (Pubkey::default() for --bpf-program and `none`, as the test validator writes). */
  upgradeAuthority: Address;
  /** PROGRAM.so, resolved. */
  file: string;
}

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46]; // "\x7fELF"
const MAX_ELF_LENGTH = MAX_PERMITTED_DATA_LENGTH - PROGRAMDATA_METADATA_SIZE;

/** A base-58 address, else the public key of a keypair file (as the test validator's parse_address). */
function addressOrKeypair(text: string, flag: string, what: string, cwd: string): Address {
  if (isAddress(text)) return text;
  const file = path.resolve(cwd, text);
  if (!fs.existsSync(file)) throw new ProgramFlagError(`${flag}: ${what} '${text}' is neither a base-58 address nor a keypair file`);
  try {
    return readKeypairFile(file).address;
  } catch (e) {
    throw new ProgramFlagError(`${flag}: ${what} '${text}' is neither a base-58 address nor a valid keypair file (${(e as Error).message})`);
  }
}

function readElf(file: string, flag: string, cwd: string): { elf: Uint8Array; file: string } {
  const resolved = path.resolve(cwd, file);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(fs.readFileSync(resolved));
  } catch (e) {
    throw new ProgramFlagError(`${flag}: program file ${resolved} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (bytes.length < ELF_MAGIC.length || ELF_MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new ProgramFlagError(`${flag}: program file ${resolved} is not an ELF file (it does not start with \\x7fELF)`);
  }
  if (bytes.length > MAX_ELF_LENGTH) {
    throw new ProgramFlagError(`${flag}: program file ${resolved} has ${bytes.length} bytes, more than a program account holds (${MAX_ELF_LENGTH})`);
  }
  return { elf: bytes, file: resolved };
}

/** `--bpf-program ADDRESS_OR_KEYPAIR PROGRAM.so`: upgradeable, with upgrades disabled (authority Pubkey::default()). */
export function loadBpfProgram(address: string, file: string, cwd = process.cwd()): ProgramToLoad {
  const flag = '--bpf-program';
  const programId = addressOrKeypair(address, flag, 'ADDRESS_OR_KEYPAIR', cwd);
  return { flag, programId, ...readElf(file, flag, cwd), upgradeAuthority: DEFAULT_PUBKEY };
}

/** `--upgradeable-program ADDRESS_OR_KEYPAIR PROGRAM.so UPGRADE_AUTHORITY|none`. */
export function loadUpgradeableProgram(address: string, file: string, authority: string, cwd = process.cwd()): ProgramToLoad {
  const flag = '--upgradeable-program';
  const programId = addressOrKeypair(address, flag, 'ADDRESS_OR_KEYPAIR', cwd);
  const elf = readElf(file, flag, cwd);
  const upgradeAuthority = authority === 'none' ? DEFAULT_PUBKEY : addressOrKeypair(authority, flag, 'UPGRADE_AUTHORITY', cwd);
  return { flag, programId, ...elf, upgradeAuthority };
}

/**
 * The Program and ProgramData accounts of each program, deployed at `slot`, in flag order (a later
 * flag for the same address wins, as the test validator's account map does).
 */
export function programAccounts(programs: readonly ProgramToLoad[], rent: RentConfig, slot: number): Array<{ address: Address; account: Account }> {
  const out: Array<{ address: Address; account: Account }> = [];
  const funded = (data: Uint8Array, executable: boolean): Account => ({
    lamports: Math.max(minimumBalanceForRentExemption(rent, data.length), 1),
    data,
    owner: BPF_LOADER_UPGRADEABLE_ID,
    executable,
    rentEpoch: 0,
  });
  for (const p of programs) {
    const programData = programDataAddress(p.programId);
    out.push({ address: programData, account: funded(programDataBytes(slot, p.upgradeAuthority, p.elf), false) });
    out.push({ address: p.programId, account: funded(encodeUpgradeableState({ kind: 'program', programData }), true) });
  }
  return out;
}
