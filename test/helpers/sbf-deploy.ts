/**
 * Deploying real compiled programs (test/fixtures/sbf) to a node through the BPF Upgradeable Loader
 * with @solana-program/loader-v3 and @solana/kit, as a program developer's tooling does: a buffer
 * account created and initialized, the ELF written in chunks that fill a 1,232-byte packet, then
 * DeployWithMaxDataLen (or Upgrade) from the buffer.
 */
import { readFileSync } from 'node:fs';
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type SolanaRpcApi,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getDeployWithMaxDataLenInstruction, getInitializeBufferInstruction, getUpgradeInstruction, getWriteInstruction, LOADER_V3_PROGRAM_ADDRESS } from '@solana-program/loader-v3';
import { waitFor } from './node.ts';

export const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`../fixtures/sbf/${name}`, import.meta.url)));

/** The largest Write chunk a 1,232-byte packet holds with a separate fee payer and buffer authority. */
export const WRITE_CHUNK = 916;
const BUFFER_METADATA = 37;

export interface SentResult {
  signature: string;
  slot: number;
  err: unknown;
  meta: any;
}

export class Deployer {
  readonly rpc: Rpc<SolanaRpcApi>;
  constructor(
    readonly url: string,
    readonly payer: KeyPairSigner,
  ) {
    this.rpc = createSolanaRpc(url);
  }

  async sign(instructions: Instruction[], payer: KeyPairSigner = this.payer) {
    const { value: latest } = await this.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const message = pipe(
      createTransactionMessage({ version: 'legacy' }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    return signTransactionMessageWithSigners(message);
  }

  /** Sends without preflight and waits until confirmed; returns the stored transaction's meta. */
  async send(instructions: Instruction[], payer?: KeyPairSigner): Promise<SentResult> {
    const [sig] = await this.sendMany([await this.sign(instructions, payer)]);
    return (await this.results([sig!]))[0]!;
  }

  async sendMany(txs: Awaited<ReturnType<Deployer['sign']>>[]): Promise<string[]> {
    const sigs: string[] = [];
    for (const tx of txs) {
      await this.rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64', skipPreflight: true }).send();
      sigs.push(getSignatureFromTransaction(tx));
    }
    return sigs;
  }

  async results(sigs: string[]): Promise<SentResult[]> {
    const out: SentResult[] = [];
    for (const signature of sigs) {
      const tx: any = await waitFor(() => this.rpc.getTransaction(signature as never, { commitment: 'confirmed', maxSupportedTransactionVersion: 0, encoding: 'json' }).send(), {
        what: `transaction ${signature}`,
        timeoutMs: 60_000,
      });
      out.push({ signature, slot: Number(tx.slot), err: tx.meta.err, meta: tx.meta });
    }
    return out;
  }

  async rent(len: number): Promise<bigint> {
    return this.rpc.getMinimumBalanceForRentExemption(BigInt(len)).send();
  }

  /** A buffer holding `elf`, written by `authority`; returns its address. */
  async writeBuffer(elf: Uint8Array, authority: KeyPairSigner): Promise<Address> {
    const buffer = await generateKeyPairSigner();
    const size = BUFFER_METADATA + elf.length;
    const created = await this.send([
      getCreateAccountInstruction({ payer: this.payer, newAccount: buffer, lamports: await this.rent(size), space: size, programAddress: LOADER_V3_PROGRAM_ADDRESS }),
      getInitializeBufferInstruction({ sourceAccount: buffer.address, bufferAuthority: authority.address }),
    ]);
    if (created.err) throw new Error(`buffer: ${JSON.stringify(created.err)}`);
    const txs = [];
    for (let offset = 0; offset < elf.length; offset += WRITE_CHUNK) {
      txs.push(await this.sign([getWriteInstruction({ bufferAccount: buffer.address, bufferAuthority: authority, offset, bytes: elf.subarray(offset, offset + WRITE_CHUNK) })]));
    }
    const results = await this.results(await this.sendMany(txs));
    const failed = results.find((r) => r.err);
    if (failed) throw new Error(`write: ${JSON.stringify(failed.err)}`);
    return buffer.address;
  }

  /** Deploys `elf` at a new program address with `authority` as upgrade authority; waits until it can be invoked. */
  async deploy(elf: Uint8Array, authority: KeyPairSigner, program?: KeyPairSigner): Promise<{ program: Address; programData: Address; result: SentResult }> {
    const buffer = await this.writeBuffer(elf, authority);
    const programSigner = program ?? (await generateKeyPairSigner());
    const programData = await programDataOf(programSigner.address);
    const result = await this.send([
      getCreateAccountInstruction({ payer: this.payer, newAccount: programSigner, lamports: await this.rent(36), space: 36, programAddress: LOADER_V3_PROGRAM_ADDRESS }),
      getDeployWithMaxDataLenInstruction({
        payerAccount: this.payer,
        programDataAccount: programData,
        programAccount: programSigner.address,
        bufferAccount: buffer,
        authority,
        maxDataLen: BigInt(elf.length),
      }),
    ]);
    if (result.err) throw new Error(`deploy: ${JSON.stringify(result.err)} ${result.meta.logMessages.join('\n')}`);
    await this.slotPassed(result.slot);
    return { program: programSigner.address, programData, result };
  }

  async upgrade(program: Address, elf: Uint8Array, authority: KeyPairSigner, bufferAuthority: KeyPairSigner = authority): Promise<SentResult> {
    const buffer = await this.writeBuffer(elf, bufferAuthority);
    return this.send([getUpgradeInstruction({ programDataAccount: await programDataOf(program), programAccount: program, bufferAccount: buffer, spillAccount: this.payer.address, authority })]);
  }

  /** Waits until the confirmed bank is past `slot` (a program deployed in `slot` runs from the next one). */
  async slotPassed(slot: number): Promise<void> {
    await waitFor(async () => Number(await this.rpc.getSlot({ commitment: 'confirmed' }).send()) > slot, { what: `slot ${slot} to pass` });
  }
}

export async function programDataOf(program: Address): Promise<Address> {
  const { getProgramDerivedAddress, getAddressEncoder } = await import('@solana/kit');
  const [pd] = await getProgramDerivedAddress({ programAddress: LOADER_V3_PROGRAM_ADDRESS, seeds: [getAddressEncoder().encode(program)] });
  return pd;
}
