import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SYSTEM_PROGRAM_ID, SYSVAR_OWNER_ID } from '../../node-core/common/pubkey.ts';
import { encodeAccount, initEncodings, type AccountEncoding } from '../../node-core/rpc/encoding/account.ts';
import { toRpcJson } from '../../node-core/rpc/json.ts';
import { uiAccountJson } from '../../node-core/pubsub/accounts.ts';
import { RENT_EXEMPT_RENT_EPOCH, type Account } from '../../node-core/runtime/account.ts';
import * as sysvars from '../../node-core/runtime/sysvars.ts';

const account = (data: Uint8Array, rentEpoch: number, owner = SYSTEM_PROGRAM_ID): Account => ({ lamports: 1_234_567_890, data, owner, executable: false, rentEpoch });

test('a notification account text is the same text toRpcJson writes, in every encoding', async () => {
  await initEncodings();
  const encodings: AccountEncoding[] = ['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed', 'json'];
  const accounts = [
    account(new Uint8Array(0), RENT_EXEMPT_RENT_EPOCH),
    account(Uint8Array.from({ length: 100 }, (_, i) => i * 7), 361),
    { ...account(new Uint8Array([1, 2, 3]), 0), executable: true, lamports: 2 ** 60 },
    // A parsed jsonParsed value (an object) goes through toRpcJson itself.
    account(new Uint8Array(40), RENT_EXEMPT_RENT_EPOCH, SYSVAR_OWNER_ID),
  ];
  for (const encoding of encodings) {
    for (const [i, a] of accounts.entries()) {
      const ui = encodeAccount(sysvars.SYSVAR_CLOCK_ID, a, { encoding });
      assert.equal(uiAccountJson(ui), toRpcJson(ui), `${encoding}, account ${i}`);
    }
  }
  // The exact digits of u64::MAX, as toRpcJson writes them.
  assert.match(uiAccountJson(encodeAccount('x', accounts[0]!, { encoding: 'base64' })), /"rentEpoch":18446744073709551615,/);
});
