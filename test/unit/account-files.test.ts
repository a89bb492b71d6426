/**
 * Account files as `solana account --output json` writes them, read the way solana-test-validator's
 * --account and --account-dir read them; and the command line that carries them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import bs58 from 'bs58';
import { parseCommandLine } from '../../node-core/cli/args.ts';
import { keypairFromSeed } from '../../node-core/keys/keypair.ts';
import { AccountFileError, loadAccountDir, loadAccountFile, parseAccountFile } from '../../node-core/ledger/account-files.ts';
import { RENT_EXEMPT_RENT_EPOCH } from '../../node-core/runtime/account.ts';
import type { NodeOptions } from '../../node-core/node/options.ts';
import { thrownBy } from '../helpers/thrown.ts';

const addr = (n: number) => keypairFromSeed(new Uint8Array(32).fill(n)).address;
const OWNER = addr(1);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-account-files-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The CLI's JSON for one account (u64 digits written as the CLI writes them). */
const cliJson = (pubkey: string, lamports: number | string, data: unknown, extra = '') =>
  `{"pubkey":"${pubkey}","account":{"lamports":${lamports},"data":${JSON.stringify(data)},"owner":"${OWNER}","executable":false,"rentEpoch":18446744073709551615${extra}}}`;

function write(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const failure = (run: () => unknown): string => thrownBy(run, AccountFileError).message;

describe('parseAccountFile', () => {
  test('the CLI JSON: base64 data, u64::MAX rent epoch, space', () => {
    const { pubkey, account } = parseAccountFile(cliJson(addr(2), 1_461_600, ['AQID', 'base64'], ',"space":3'), 'x.json');
    assert.equal(pubkey, addr(2));
    assert.deepEqual(account, { lamports: 1_461_600, data: Uint8Array.of(1, 2, 3), owner: OWNER, executable: false, rentEpoch: RENT_EXEMPT_RENT_EPOCH });
  });

  test('base58 data, in the pair form and the legacy bare string', () => {
    assert.deepEqual(parseAccountFile(cliJson(addr(2), 1, [bs58.encode(Uint8Array.of(9, 8)), 'base58']), 'x').account.data, Uint8Array.of(9, 8));
    assert.deepEqual(parseAccountFile(cliJson(addr(2), 1, bs58.encode(Uint8Array.of(7))), 'x').account.data, Uint8Array.of(7));
  });

  test('every problem names the file and what is wrong', () => {
    const cases: Array<[string, RegExp]> = [
      ['not json', /bad\.json: not JSON/],
      ['[]', /expected an object/],
      [cliJson('nope', 1, ['', 'base64']), /pubkey is not a base-58 public key/],
      [`{"pubkey":"${addr(2)}"}`, /account is missing/],
      [cliJson(addr(2), -1, ['', 'base64']), /lamports must be a non-negative integer/],
      [cliJson(addr(2), '1.5', ['', 'base64']), /lamports must be a non-negative integer/],
      [cliJson(addr(2), '18446744073709551615', ['', 'base64']), /above 2\^53/],
      [cliJson(addr(2), 1, ['!!', 'base64']), /not base64/],
      [cliJson(addr(2), 1, ['KLUv', 'base64+zstd']), /base64\+zstd" is not supported/],
      [cliJson(addr(2), 1, { parsed: {} }), /account\.data must be/],
      [cliJson(addr(2), 1, ['AQID', 'base64'], ',"space":4'), /space 4 differs from the data's 3 bytes/],
      [cliJson(addr(2), 1, ['', 'base64']).replace(`"${OWNER}"`, '"x"'), /owner is not a base-58 public key/],
      [cliJson(addr(2), 1, ['', 'base64']).replace('"executable":false', '"executable":0'), /executable must be true or false/],
    ];
    for (const [text, re] of cases) assert.match(failure(() => parseAccountFile(text, '/tmp/bad.json')), re, text);
  });
});

describe('loadAccountFile and loadAccountDir', () => {
  test("ADDRESS - takes the file's pubkey; an address puts the account there instead", () => {
    const file = write('one.json', cliJson(addr(3), 10, ['', 'base64']));
    assert.equal(loadAccountFile('-', file).address, addr(3));
    assert.equal(loadAccountFile(addr(4), file).address, addr(4));
    assert.match(failure(() => loadAccountFile('zzz', file)), /ADDRESS must be a base-58 public key or -/);
    assert.match(failure(() => loadAccountFile('-', path.join(dir, 'missing.json'))), /missing\.json: cannot be read \(ENOENT\)/);
  });

  test('relative files are found from the working folder, then under tests/fixtures', () => {
    write('project/tests/fixtures/fixture.json', cliJson(addr(5), 11, ['', 'base64']));
    const loaded = loadAccountFile('-', 'fixture.json', path.join(dir, 'project'));
    assert.equal(loaded.address, addr(5));
    assert.equal(loaded.file, path.join(dir, 'project/tests/fixtures/fixture.json'));
  });

  test('a folder: every *.json file by name, each at its own pubkey; a bad one stops the load', () => {
    write('folder/b.json', cliJson(addr(7), 2, ['', 'base64']));
    write('folder/a.json', cliJson(addr(6), 1, ['', 'base64']));
    write('folder/notes.txt', 'ignored');
    assert.deepEqual(loadAccountDir(path.join(dir, 'folder')).map((a) => [a.address, a.account.lamports]), [[addr(6), 1], [addr(7), 2]]);
    write('folder/c.json', '{');
    assert.match(failure(() => loadAccountDir(path.join(dir, 'folder'))), /folder\/c\.json: not JSON/);
    assert.match(failure(() => loadAccountDir(path.join(dir, 'no-such-folder'))), /--account-dir .*no-such-folder: cannot be read/);
  });
});

describe('the command line', () => {
  const start = (...args: string[]) => parseCommandLine(['start', ...args]);

  test('--account pairs (repeatable) and --account-dir fill options.accounts in order', () => {
    const one = write('cli/one.json', cliJson(addr(8), 5, ['', 'base64']));
    const two = write('cli/two.json', cliJson(addr(9), 6, ['', 'base64']));
    write('cli-dir/x.json', cliJson(addr(10), 7, ['', 'base64']));
    const r = start('--account', addr(11), one, '--quiet', '--account', '-', two, '--account-dir', path.join(dir, 'cli-dir'));
    assert.equal(r.command, 'start', JSON.stringify(r));
    const options = (r as { options: NodeOptions }).options;
    assert.deepEqual(options.accounts!.map((a) => [a.address, a.account.lamports]), [[addr(11), 5], [addr(9), 6], [addr(10), 7]]);
    assert.equal(options.quiet, true);
    assert.equal((start() as { options: NodeOptions }).options.accounts, undefined);
  });

  test('missing values and bad files: an error naming the flag or the file', () => {
    const message = (r: ReturnType<typeof start>) => (r.command === 'error' ? r.message : assert.fail(JSON.stringify(r)));
    assert.match(message(start('--account')), /--account needs ADDRESS and FILE/);
    assert.match(message(start('--account', '-')), /--account needs ADDRESS and FILE/);
    assert.match(message(start('--account', '-', '--quiet')), /--account needs ADDRESS and FILE/);
    assert.match(message(start('--account=x', 'y')), /--account takes two values/);
    assert.match(message(start('--account-dir')), /--account-dir needs a value/);
    const bad = write('cli/bad.json', '{"pubkey": 1}');
    assert.match(message(start('--account', '-', bad)), new RegExp(`^error: account file ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: pubkey`));
  });
});
