/** LiteSVM as a benchmark peer: a funded payer, and pre-signed transactions run in-process and timed. */
import { generateKeypair, type Keypair } from '../../node-core/keys/keypair.ts';

export interface LiteSvmPeer {
  payer: Keypair;
  blockhash: string;
  minimumBalance(dataLength: number): number;
  /** Sends one transaction; false when it failed. */
  send(wire: Uint8Array): boolean;
  /** Decodes every wire first, then times sending them all. */
  timed(wires: Uint8Array[]): { seconds: number; failed: number };
}

export async function liteSvmPeer(): Promise<LiteSvmPeer> {
  const { LiteSVM } = await import('litesvm');
  const { getTransactionDecoder } = await import('@solana/kit');
  const svm = new LiteSVM();
  const payer = generateKeypair();
  // LiteSVM's faucet holds less than a quadrillion lamports; a thousand SOL covers every transfer.
  svm.airdrop(payer.address as never, 1_000_000_000_000n as never);
  const decoder = getTransactionDecoder();
  const ok = (tx: unknown) => svm.sendTransaction(tx as never).constructor.name !== 'FailedTransactionMetadata';
  return {
    payer,
    blockhash: svm.latestBlockhash(),
    minimumBalance: (len) => Number(svm.minimumBalanceForRentExemption(BigInt(len))),
    send: (wire) => ok(decoder.decode(wire)),
    timed(wires) {
      const txs = wires.map((w) => decoder.decode(w));
      const start = performance.now();
      let failed = 0;
      for (const tx of txs) if (!ok(tx)) failed++;
      return { seconds: (performance.now() - start) / 1000, failed };
    },
  };
}
