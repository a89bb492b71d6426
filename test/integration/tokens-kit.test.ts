/**
 * SPL Token through @solana/kit and @solana-program/token, the generated clients: their account
 * decoders read the node's bytes, their instruction builders drive the node's programs, and kit's
 * RPC client reads the token methods and jsonParsed shapes with its own types.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type RpcSubscriptions,
  type Signature,
  type SolanaRpcApi,
  type SolanaRpcSubscriptionsApi,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import * as T from '@solana-program/token';
import { startTestNode, type TestNode } from '../helpers/node.ts';

let node: TestNode;
let rpc: Rpc<SolanaRpcApi>;
let subs: RpcSubscriptions<SolanaRpcSubscriptionsApi>;
let payer: KeyPairSigner;

async function send(instructions: Instruction[]): Promise<Signature> {
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const signed = await signTransactionMessageWithSigners(message);
  await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions: subs })(signed as never, { commitment: 'confirmed' });
  return getSignatureFromTransaction(signed);
}

/** The custom program error code of a refused (preflight) transaction. */
async function customCode(instructions: Instruction[]): Promise<number> {
  try {
    await send(instructions);
  } catch (e) {
    assert.ok(isSolanaError(e, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE), String(e));
    const cause = (e as { cause?: unknown }).cause;
    assert.ok(isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM), String(cause));
    return Number((cause as { context: { code: number | bigint } }).context.code);
  }
  assert.fail('expected the transaction to be refused');
}

before(async () => {
  node = await startTestNode();
  rpc = createSolanaRpc(node.rpcUrl);
  subs = createSolanaRpcSubscriptions(node.pubsubUrl);
  payer = await createKeyPairSignerFromBytes(node.keys.devAccounts[1]!.secretKey);
});

after(async () => {
  await node?.stop();
});

describe('SPL Token with @solana/kit and @solana-program/token', () => {
  let mint: KeyPairSigner;
  let owner: KeyPairSigner;
  let source: Address;
  let destination: Address;

  before(async () => {
    mint = await generateKeyPairSigner();
    owner = await generateKeyPairSigner();
    const space = BigInt(T.getMintSize());
    const rent = await rpc.getMinimumBalanceForRentExemption(space).send();
    await send([
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: lamports(rent), space, programAddress: T.TOKEN_PROGRAM_ADDRESS }),
      T.getInitializeMint2Instruction({ mint: mint.address, decimals: 2, mintAuthority: payer.address, freezeAuthority: payer.address }),
    ]);
    [source] = await T.findAssociatedTokenPda({ owner: payer.address, mint: mint.address, tokenProgram: T.TOKEN_PROGRAM_ADDRESS });
    [destination] = await T.findAssociatedTokenPda({ owner: owner.address, mint: mint.address, tokenProgram: T.TOKEN_PROGRAM_ADDRESS });
    await send([
      await T.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: payer.address, mint: mint.address }),
      await T.getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: owner.address, mint: mint.address }),
      T.getMintToCheckedInstruction({ mint: mint.address, token: source, mintAuthority: payer, amount: 10_000n, decimals: 2 }),
    ]);
  });

  it('the generated decoders read the mint and the token accounts', async () => {
    const m = await T.fetchMint(rpc, mint.address, { commitment: 'confirmed' });
    assert.equal(m.data.decimals, 2);
    assert.equal(m.data.supply, 10_000n);
    assert.equal(m.data.mintAuthority.__option, 'Some');
    const t = await T.fetchToken(rpc, source, { commitment: 'confirmed' });
    assert.equal(t.data.amount, 10_000n);
    assert.equal(t.data.owner, payer.address);
    assert.equal(t.data.state, T.AccountState.Initialized);
    assert.equal(t.programAddress, T.TOKEN_PROGRAM_ADDRESS);
  });

  it('transferChecked, then the token methods through kit\'s RPC client', async () => {
    const sig = await send([T.getTransferCheckedInstruction({ source, mint: mint.address, destination, authority: payer, amount: 2_550n, decimals: 2 })]);
    const tx = await rpc.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' }).send();
    const ix = tx!.transaction.message.instructions[0] as { program?: string; parsed?: { type: string } };
    assert.equal(ix.program, 'spl-token');
    assert.equal(ix.parsed!.type, 'transferChecked');
    assert.equal(tx!.meta!.postTokenBalances!.length, 2);
    const balance = await rpc.getTokenAccountBalance(destination, { commitment: 'confirmed' }).send();
    assert.deepEqual(balance.value, { amount: '2550', decimals: 2, uiAmount: 25.5, uiAmountString: '25.5' });
    const supply = await rpc.getTokenSupply(mint.address, { commitment: 'confirmed' }).send();
    assert.equal(supply.value.uiAmountString, '100');
    const largest = await rpc.getTokenLargestAccounts(mint.address, { commitment: 'confirmed' }).send();
    assert.deepEqual(
      largest.value.map((v) => [v.address, v.amount]),
      [
        [source, '7450'],
        [destination, '2550'],
      ],
    );
    const byOwner = await rpc.getTokenAccountsByOwner(owner.address, { mint: mint.address }, { commitment: 'confirmed', encoding: 'jsonParsed' }).send();
    assert.equal(byOwner.value.length, 1);
    const info = byOwner.value[0]!.account.data.parsed.info;
    assert.equal(info.tokenAmount.amount, '2550');
    assert.equal(info.state, 'initialized');
    const raw = await rpc.getTokenAccountsByOwner(owner.address, { programId: T.TOKEN_PROGRAM_ADDRESS }, { commitment: 'confirmed', encoding: 'base64' }).send();
    const decoded = T.getTokenDecoder().decode(Buffer.from(raw.value[0]!.account.data[0], 'base64'));
    assert.equal(decoded.amount, 2_550n);
  });

  it('frozen accounts, a mint mismatch and short funds are refused with the program\'s codes', async () => {
    await send([T.getFreezeAccountInstruction({ account: destination, mint: mint.address, owner: payer })]);
    assert.equal(await customCode([T.getTransferCheckedInstruction({ source, mint: mint.address, destination, authority: payer, amount: 1n, decimals: 2 })]), 17);
    await send([T.getThawAccountInstruction({ account: destination, mint: mint.address, owner: payer })]);
    assert.equal(await customCode([T.getTransferInstruction({ source, destination, authority: payer, amount: 1_000_000n })]), 1);
    const otherMint = await generateKeyPairSigner();
    assert.equal(await customCode([T.getTransferCheckedInstruction({ source, mint: otherMint.address, destination, authority: payer, amount: 1n, decimals: 2 })]), 3);
    assert.equal(await customCode([T.getMintToInstruction({ mint: mint.address, token: source, mintAuthority: owner, amount: 1n })]), 4);
  });

  it('a delegate found by getTokenAccountsByDelegate; an emptied account closed', async () => {
    const delegate = await generateKeyPairSigner();
    await send([T.getApproveCheckedInstruction({ source, mint: mint.address, delegate: delegate.address, owner: payer, amount: 100n, decimals: 2 })]);
    const byDelegate = await rpc.getTokenAccountsByDelegate(delegate.address, { programId: T.TOKEN_PROGRAM_ADDRESS }, { commitment: 'confirmed', encoding: 'jsonParsed' }).send();
    assert.deepEqual(byDelegate.value.map((v) => v.pubkey), [source]);
    await send([T.getRevokeInstruction({ source, owner: payer })]);
    const after = await rpc.getTokenAccountsByDelegate(delegate.address, { programId: T.TOKEN_PROGRAM_ADDRESS }, { commitment: 'confirmed', encoding: 'base64' }).send();
    assert.deepEqual(after.value, []);
    const t = await T.fetchToken(rpc, source, { commitment: 'confirmed' });
    await send([
      T.getBurnCheckedInstruction({ account: source, mint: mint.address, authority: payer, amount: t.data.amount, decimals: 2 }),
      T.getCloseAccountInstruction({ account: source, destination: payer.address, owner: payer }),
    ]);
    const gone = await rpc.getAccountInfo(source, { commitment: 'confirmed', encoding: 'base64' }).send();
    assert.equal(gone.value, null);
  });
});
