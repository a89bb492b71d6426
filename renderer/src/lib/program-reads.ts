/** Reads for a program's page: the executable account (jsonParsed) and, for an upgradeable program, its ProgramData. */
import type { Connection } from './connection.ts';
import { unwrap } from './rpc.ts';
import { describeProgram, UPGRADEABLE_LOADER, type ProgramView } from './program.ts';

/** The program's view, or why the address holds no program (then `view` is null). */
export async function fetchProgram(c: Connection, address: string): Promise<{ view: ProgramView | null; account: any; notAProgram: string | null }> {
  const [info] = unwrap<[any]>(await c.rpc.batch([['getAccountInfo', [address, { encoding: 'jsonParsed', commitment: 'confirmed' }]]]));
  const account = info.value;
  if (!account) return { view: null, account: null, notAProgram: 'No account at this address.' };
  if (!account.executable) return { view: null, account, notAProgram: 'This account is not executable: it is not a program.' };
  const parsed = !Array.isArray(account.data) ? account.data?.parsed : undefined;
  let programData: any = null;
  if (account.owner === UPGRADEABLE_LOADER && parsed?.type === 'program') {
    const [pd] = unwrap<[any]>(await c.rpc.batch([['getAccountInfo', [parsed.info.programData, { encoding: 'jsonParsed', commitment: 'confirmed' }]]]));
    programData = pd.value;
  }
  return { view: describeProgram(address, account, programData), account, notAProgram: null };
}

/** The upgradeable program whose ProgramData this is (the Program account holding its address), or null. */
export async function programOfProgramData(c: Connection, programData: string): Promise<string | null> {
  const [found] = unwrap<[any[]]>(
    await c.rpc.batch([
      ['getProgramAccounts', [UPGRADEABLE_LOADER, { encoding: 'base64', commitment: 'confirmed', dataSlice: { offset: 0, length: 0 }, filters: [{ dataSize: 36 }, { memcmp: { offset: 4, bytes: programData } }] }]],
    ]),
  );
  return found[0]?.pubkey ?? null;
}
