/**
 * PubSub for deployed programs, over a raw WebSocket (`ws`): logsSubscribe `{ mentions: [program] }`
 * delivers a deployed program's invocation logs (hello_solana's `Program log: Hello, Solana!`, and a
 * failed run's error) and nothing for transactions that do not mention it; accountSubscribe fires on
 * an account a program writes through a CPI (simple_transfer_program's recipient); programSubscribe on
 * the BPF Upgradeable Loader, filtered to ProgramData accounts, fires for a deploy and for an upgrade
 * with the new ELF and deployment slot. Transactions are sent with @solana/kit (test/helpers/sbf-deploy.ts).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AccountRole, createKeyPairSignerFromBytes, generateKeyPairSigner, type Address, type Instruction } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { loadBpfProgram } from '../../node-core/node/program-flags.ts';
import { ROOT } from '../helpers/cli-process.ts';
import { startTestNode, waitFor, type TestNode } from '../helpers/node.ts';
import { Deployer, fixture } from '../helpers/sbf-deploy.ts';

const LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const SYSTEM = '11111111111111111111111111111111' as Address;
const HELLO = Keypair.generate().publicKey.toBase58() as Address;
const TRANSFER = Keypair.generate().publicKey.toBase58() as Address;
const NOOP = Keypair.generate().publicKey.toBase58() as Address;
const so = (name: string) => path.join(ROOT, 'test/fixtures/sbf', name);

/** A PubSub connection: subscribe and wait for the id, then wait for a notification of that subscription matching a predicate. */
class PubSub {
  private readonly notes: Array<{ subscription: number; result: any }> = [];
  private readonly replies = new Map<number, (r: any) => void>();
  private nextId = 1;
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw));
      if ('id' in msg) this.replies.get(msg.id)?.(msg);
      else this.notes.push(msg.params);
    });
  }

  static open(url: string): Promise<PubSub> {
    const ws = new WebSocket(url);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new PubSub(ws)));
      ws.once('error', reject);
    });
  }

  async subscribe(method: string, params: unknown[]): Promise<number> {
    const id = this.nextId++;
    const reply = await new Promise<any>((resolve) => {
      this.replies.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
    assert.equal(typeof reply.result, 'number', `${method}: ${JSON.stringify(reply)}`);
    return reply.result;
  }

  all(subscription: number): any[] {
    return this.notes.filter((n) => n.subscription === subscription).map((n) => n.result);
  }

  next(subscription: number, what: string, match: (result: any) => boolean): Promise<any> {
    return waitFor(() => this.all(subscription).find(match), { what, timeoutMs: 60_000 });
  }

  close(): void {
    this.ws.close();
  }
}

let node: TestNode;
let d: Deployer;
let ps: PubSub;

before(async () => {
  node = await startTestNode({ slotMs: 40, programs: [loadBpfProgram(HELLO, so('hello_solana_program.so')), loadBpfProgram(TRANSFER, so('simple_transfer_program.so')), loadBpfProgram(NOOP, so('noop.so'))] });
  d = new Deployer(node.rpcUrl, await createKeyPairSignerFromBytes(node.keys.devAccounts[0]!.secretKey));
  ps = await PubSub.open(node.pubsubUrl);
});

after(async () => {
  ps?.close();
  await node?.stop();
});

const invoke = (program: Address, accounts: Instruction['accounts'] = [], data = new Uint8Array(0)): Instruction => ({ programAddress: program, accounts, data });

describe('PubSub for deployed programs', () => {
  it("logsSubscribe { mentions: [program] }: the program's invocation logs, success and failure, and nothing else", async () => {
    const sub = await ps.subscribe('logsSubscribe', [{ mentions: [HELLO] }, { commitment: 'confirmed' }]);
    const [other, ok] = await d.sendMany([await d.sign([invoke(NOOP)]), await d.sign([invoke(HELLO)])]);
    const note = await ps.next(sub, 'the logs of the hello_solana invocation', (r) => r.value.signature === ok);
    const [stored] = await d.results([ok!]);
    assert.equal(note.value.err, null);
    assert.equal(note.context.slot, stored!.slot);
    assert.deepEqual(note.value.logs, stored!.meta.logMessages);
    assert.ok(note.value.logs.includes('Program log: Hello, Solana!'));
    assert.ok(note.value.logs.includes(`Program log: Our program's Program ID: ${HELLO}`));

    // A failed invocation (out of compute units) is delivered with its error and its logs.
    const setLimit: Instruction = { programAddress: 'ComputeBudget111111111111111111111111111111' as Address, accounts: [], data: new Uint8Array([2, 0x88, 0x13, 0, 0]) };
    const [failed] = await d.sendMany([await d.sign([setLimit, invoke(HELLO)])]);
    const failedNote = await ps.next(sub, 'the failed invocation', (r) => r.value.signature === failed);
    assert.deepEqual(failedNote.value.err, { InstructionError: [1, 'ProgramFailedToComplete'] });
    assert.ok(failedNote.value.logs.includes(`Program ${HELLO} failed: exceeded CUs meter at BPF instruction`));

    // The noop transaction, confirmed by now, never mentioned hello_solana.
    await d.results([other!]);
    assert.deepEqual(new Set(ps.all(sub).map((r) => r.value.signature)), new Set([ok, failed]));
  });

  it("accountSubscribe fires for an account a program writes through its System CPI (simple_transfer_program's recipient)", async () => {
    const recipient = (await generateKeyPairSigner()).address;
    const sub = await ps.subscribe('accountSubscribe', [recipient, { commitment: 'confirmed', encoding: 'base64' }]);
    const amount = new Uint8Array(8);
    new DataView(amount.buffer).setBigUint64(0, 1_000_000n, false); // the program reads a big-endian u64
    const r = await d.send([
      invoke(
        TRANSFER,
        [
          { address: d.payer.address, role: AccountRole.WRITABLE_SIGNER, signer: d.payer } as never,
          { address: recipient, role: AccountRole.WRITABLE },
          { address: SYSTEM, role: AccountRole.READONLY },
        ],
        amount,
      ),
    ]);
    assert.equal(r.err, null, JSON.stringify(r.meta.logMessages));
    assert.ok(r.meta.logMessages.includes(`Program ${SYSTEM} invoke [2]`));
    const note = await ps.next(sub, 'the recipient account notification', () => true);
    assert.equal(note.context.slot, r.slot);
    assert.equal(note.value.lamports, 1_000_000);
    assert.equal(note.value.owner, SYSTEM);
    assert.equal((await d.rpc.getBalance(recipient, { commitment: 'confirmed' }).send()).value, 1_000_000n);
  });

  it('programSubscribe on the BPF Upgradeable Loader (ProgramData accounts) fires for a deploy and for an upgrade', async () => {
    // memcmp at 0 on UpgradeableLoaderState::ProgramData's tag (3, u32 LE): programdata accounts only, not buffers or programs.
    const sub = await ps.subscribe('programSubscribe', [LOADER, { commitment: 'confirmed', encoding: 'base64', filters: [{ memcmp: { offset: 0, bytes: bs58.encode([3, 0, 0, 0]) } }] }]);
    const authority = await generateKeyPairSigner();
    const v1 = fixture('solana_bpf_rust_upgradeable.so');
    const v2 = fixture('solana_bpf_rust_upgraded.so');
    const { program, programData, result: deployed } = await d.deploy(v1, authority);

    const bytes = (r: any) => Buffer.from(r.value.account.data[0], 'base64');
    const deployNote = await ps.next(sub, 'the new ProgramData', (r) => r.value.pubkey === programData);
    assert.equal(deployNote.context.slot, deployed.slot);
    assert.equal(deployNote.value.account.owner, LOADER);
    const pd = bytes(deployNote);
    assert.equal(pd.readBigUInt64LE(4), BigInt(deployed.slot));
    assert.ok(pd.subarray(13, 45).equals(Buffer.from(bs58.decode(authority.address))));
    assert.ok(pd.subarray(45, 45 + v1.length).equals(v1));

    const upgraded = await d.upgrade(program, v2, authority);
    assert.equal(upgraded.err, null, JSON.stringify(upgraded.meta.logMessages));
    const upgradeNote = await ps.next(sub, 'the upgraded ProgramData', (r) => r.value.pubkey === programData && r.context.slot === upgraded.slot);
    const after = bytes(upgradeNote);
    assert.equal(after.readBigUInt64LE(4), BigInt(upgraded.slot));
    assert.ok(after.subarray(45, 45 + v2.length).equals(v2));
    assert.ok(ps.all(sub).every((r) => bytes(r).readUInt32LE(0) === 3), 'only ProgramData accounts matched the filter');
  });
});

