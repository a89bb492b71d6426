/**
 * @nomicfoundation/hardhat-network-helpers (with Hardhat 2 as its provider), unchanged, against a real
 * node: a Hardhat project whose network is the node's EVM endpoint runs the helpers most test suites
 * use — mine/mineUpTo, time, setBalance/Code/Nonce/StorageAt, impersonation, takeSnapshot,
 * loadFixture, reset — and each step is checked again here through the node's own RPC.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/cli-process.ts';
import { rpc, startTestNode, tempLedger, type TestNode } from '../helpers/node.ts';

const PROJECT = path.join(ROOT, 'test/fixtures/hardhat-project');
const WORDS = 'test test test test test test test test test test test junk';

interface Step {
  step: string;
  [key: string]: unknown;
}

describe('hardhat-network-helpers against the node', () => {
  let node: TestNode;
  let ledger: string;

  before(async () => {
    ledger = tempLedger();
    node = await startTestNode({ mnemonic: WORDS, ledger });
  });
  after(async () => {
    await node?.stop();
    fs.rmSync(ledger, { recursive: true, force: true });
  });

  test('the helpers run unchanged and the node agrees with what they saw', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['network-helpers.cjs'], {
      cwd: PROJECT,
      env: { ...process.env, HARDHAT_NETWORK: 'isthmus', ISTHMUS_EVM_URL: node.evmRpcUrl, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
      timeout: 300_000,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`the helpers' script failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
    });
    const steps = new Map(stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => {
      const s = JSON.parse(l) as Step;
      return [s.step, s];
    }));
    assert.deepEqual([...steps.keys()], ['mine', 'time', 'edits', 'impersonation', 'snapshot', 'loadFixture', 'reset']);

    // The impersonated transfer was reset away with everything else.
    const hash = steps.get('impersonation')!.hash as string;
    assert.equal((await rpc(node.evmRpcUrl, 'eth_getTransactionReceipt', [hash])).result, null);
    const stranger = steps.get('edits')!.stranger as string;
    assert.equal(BigInt((await rpc(node.evmRpcUrl, 'eth_getBalance', [stranger, 'latest'])).result), 0n);
    // The chain goes on after the reset: new blocks are mined from where it restarted.
    const resetAt = steps.get('reset')!.blockNumber as number;
    await rpc(node.evmRpcUrl, 'evm_mine', []);
    assert.ok(Number((await rpc(node.evmRpcUrl, 'eth_blockNumber', [])).result) > resetAt);
  });
});
