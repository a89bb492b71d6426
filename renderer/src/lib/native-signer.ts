/** Signs and sends the native → EVM deposit in the browser with @solana/web3.js (loaded only when needed). */
import bs58 from 'bs58';
import type { Connection } from './connection.ts';
import { depositInstructionData, nodeBridge } from './bridge.ts';

const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';

async function buildDeposit(c: Connection, secretKey: Uint8Array, evmAddress: string, lamports: bigint) {
  const { evmProgramId, evmStateAccount } = nodeBridge(c.info);
  // web3.js and the Buffer polyfill it takes stay out of the first page's script.
  const [web3, { Buffer }] = await Promise.all([import('@solana/web3.js'), import('buffer')]);
  const signer = web3.Keypair.fromSecretKey(secretKey);
  const data = depositInstructionData(lamports, evmAddress, { evmProgramId });
  const owner = { pubkey: signer.publicKey, isSigner: true, isWritable: true };
  const evmAccounts = [{ pubkey: new web3.PublicKey(evmStateAccount), isSigner: false, isWritable: true }, owner];
  const { blockhash, lastValidBlockHeight } = (await c.rpc.call<any>('getLatestBlockhash', [{ commitment: 'confirmed' }])).value;
  const tx = new web3.Transaction({ feePayer: signer.publicKey, blockhash, lastValidBlockHeight });
  tx.add(
    new web3.TransactionInstruction({ programId: new web3.PublicKey(SYSTEM_PROGRAM_ID), keys: [owner], data: Buffer.from(data.assign) }),
    new web3.TransactionInstruction({ programId: new web3.PublicKey(evmProgramId), keys: evmAccounts, data: Buffer.from(data.swap) }),
    new web3.TransactionInstruction({ programId: new web3.PublicKey(evmProgramId), keys: evmAccounts, data: Buffer.from(data.free) }),
  );
  return { signer, tx };
}

/** The Solana CLI layout: the 32-byte seed, then the public key. */
export const publicKeyOf = (secretKey: Uint8Array): string => bs58.encode(secretKey.slice(32));

/** The fee the node asks for this deposit (getFeeForMessage). */
export async function depositFee(c: Connection, secretKey: Uint8Array, evmAddress: string, lamports: bigint): Promise<bigint> {
  const { tx } = await buildDeposit(c, secretKey, evmAddress, lamports);
  const message = tx.compileMessage().serialize().toString('base64');
  const fee = await c.rpc.call<{ value: number | null }>('getFeeForMessage', [message, { commitment: 'confirmed' }]);
  if (fee.value === null) throw new Error('The node did not price the deposit message (its blockhash expired); try again');
  return BigInt(fee.value);
}

export async function sendDeposit(c: Connection, secretKey: Uint8Array, evmAddress: string, lamports: bigint): Promise<string> {
  const { signer, tx } = await buildDeposit(c, secretKey, evmAddress, lamports);
  tx.sign(signer);
  return c.rpc.call<string>('sendTransaction', [tx.serialize().toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }]);
}
