/** The explorer's program views: logs grouped by invocation, the inner-instruction tree, and what a program account says. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { computeUnitsByInvocation, groupLogs } from '../../renderer/src/lib/program-logs.ts';
import { innerInstructionTree } from '../../renderer/src/lib/instruction-tree.ts';
import { DEFAULT_PUBKEY, describeProgram } from '../../renderer/src/lib/program.ts';

const P = '3xTygm1mZ1dF2ndoSKdtqUBFZaqgeaDVCoW1ra5XwudF';
const SYSTEM = '11111111111111111111111111111111';
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ATA = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';

describe('groupLogs', () => {
  test('a CPI nests under its caller, with results, compute units and return data', () => {
    // The shape of Agave's logs for the ATA program creating an account (fixtures README, LiteSVM).
    const logs = [
      `Program ${ATA} invoke [1]`,
      'Program log: Create',
      `Program ${TOKEN} invoke [2]`,
      'Program log: Instruction: GetAccountDataSize',
      `Program ${TOKEN} consumed 1622 of 194690 compute units`,
      `Program return: ${TOKEN} pQAAAAAAAAA=`,
      `Program ${TOKEN} success`,
      `Program ${SYSTEM} invoke [2]`,
      `Program ${SYSTEM} success`,
      'Program log: Initialize the associated token account',
      `Program ${ATA} consumed 21990 of 200000 compute units`,
      `Program ${ATA} success`,
    ];
    const g = groupLogs(logs);
    assert.equal(g.invocations.length, 1);
    assert.deepEqual(g.other, []);
    const ata = g.invocations[0]!;
    assert.deepEqual([ata.programId, ata.depth, ata.result, ata.computeUnits], [ATA, 1, { ok: true }, { consumed: 21990, limit: 200000 }]);
    assert.deepEqual(ata.entries.map((e) => (e.kind === 'line' ? e.text : `invoke ${e.invocation.programId}`)), [
      'Program log: Create',
      `invoke ${TOKEN}`,
      `invoke ${SYSTEM}`,
      'Program log: Initialize the associated token account',
    ]);
    const token = (ata.entries[1] as { invocation: any }).invocation;
    assert.equal(token.depth, 2);
    assert.equal(token.returnData, 'pQAAAAAAAAA=');
    assert.deepEqual(token.computeUnits, { consumed: 1622, limit: 194690 });
    const system = (ata.entries[2] as { invocation: any }).invocation;
    assert.deepEqual([system.result, system.computeUnits, system.entries], [{ ok: true }, null, []]);
    assert.deepEqual(computeUnitsByInvocation(g), [
      { programId: ATA, depth: 1, consumed: 21990, limit: 200000 },
      { programId: TOKEN, depth: 2, consumed: 1622, limit: 194690 },
    ]);
  });

  test('failures, several instructions, multi-line logs, lines outside any invocation, logs that stop early', () => {
    const g = groupLogs([
      `Program ${SYSTEM} invoke [1]`,
      `Program ${SYSTEM} success`,
      `Program ${P} invoke [1]`,
      'Program log: panicked at src/lib.rs:14:41:\nrange end index 8 out of range for slice of length 0',
      `Program ${P} consumed 1964 of 199850 compute units`,
      `Program ${P} failed: SBF program panicked`,
      'Log truncated',
      `Program ${P} invoke [1]`,
      'Program log: Hello, Solana!',
    ]);
    assert.deepEqual(g.invocations.map((i) => [i.programId, i.result]), [
      [SYSTEM, { ok: true }],
      [P, { ok: false, message: 'SBF program panicked' }],
      [P, null],
    ]);
    assert.equal((g.invocations[1]!.entries[0] as { text: string }).text.split('\n').length, 2);
    assert.deepEqual(g.other, ['Log truncated']);
    assert.deepEqual(groupLogs(null), { invocations: [], other: [] });
  });

  test('a `success` of another program does not close the current invocation', () => {
    const g = groupLogs([`Program ${P} invoke [1]`, `Program log: Program ${SYSTEM} success`, `Program ${SYSTEM} success`, `Program ${P} success`]);
    assert.equal(g.invocations.length, 1);
    assert.deepEqual(g.invocations[0]!.result, { ok: true });
    assert.equal(g.invocations[0]!.entries.length, 2);
  });
});

describe('innerInstructionTree', () => {
  test('stack heights nest: 2 under the instruction, 3 under the 2 before it', () => {
    const ix = (name: string, stackHeight?: number) => ({ name, ...(stackHeight === undefined ? {} : { stackHeight }) });
    const tree = innerInstructionTree([ix('a', 2), ix('a.1', 3), ix('a.1.1', 4), ix('a.2', 3), ix('b', 2), ix('c', 2), ix('c.1', 3)]);
    const shape = (nodes: ReturnType<typeof innerInstructionTree>): unknown => nodes.map((n) => [n.ix.name, n.path.join('.'), shape(n.children)]);
    assert.deepEqual(shape(tree), [
      ['a', '1', [['a.1', '1.1', [['a.1.1', '1.1.1', []]]], ['a.2', '1.2', []]]],
      ['b', '2', []],
      ['c', '3', [['c.1', '3.1', []]]],
    ]);
    // Without stack heights every inner instruction is a direct CPI.
    assert.deepEqual(shape(innerInstructionTree([ix('x'), ix('y')])), [['x', '1', []], ['y', '2', []]]);
    assert.deepEqual(innerInstructionTree(undefined), []);
  });
});

describe('describeProgram', () => {
  const LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
  const PD = 'AqH29mZfQFgRpfwaPoTMWSKJ5kqauoc1FwVBRksZyQrt';
  const program = { owner: LOADER, executable: true, data: { program: 'bpf-upgradeable-loader', parsed: { type: 'program', info: { programData: PD } }, space: 36 } };
  const programData = (authority: string | null) => ({
    owner: LOADER,
    executable: false,
    data: { program: 'bpf-upgradeable-loader', parsed: { type: 'programData', info: { slot: 7, authority, data: ['', 'base64'] } }, space: 45 + 1592 },
  });

  test('upgradeable, final (None or the default pubkey), closed', () => {
    const auth = '3xTygm1mZ1dF2ndoSKdtqUBFZaqgeaDVCoW1ra5XwudF';
    assert.deepEqual(describeProgram(P, program, programData(auth)), {
      address: P, loader: LOADER, kind: 'upgradeable', note: null, programData: PD, authority: auth, storedAuthority: auth, lastDeploySlot: 7, elfSize: 1592,
    });
    const none = describeProgram(P, program, programData(null));
    assert.deepEqual([none.kind, none.authority, none.note], ['final', null, null]);
    const byDefault = describeProgram(P, program, programData(DEFAULT_PUBKEY));
    assert.deepEqual([byDefault.kind, byDefault.authority, byDefault.storedAuthority], ['final', null, DEFAULT_PUBKEY]);
    assert.match(byDefault.note!, /no one can sign for/);
    assert.equal(describeProgram(P, program, null).kind, 'closed');
  });

  test('BPF Loader 2 and builtins', () => {
    const v2 = describeProgram(P, { owner: 'BPFLoader2111111111111111111111111111111111', executable: true, data: [Buffer.alloc(10).toString('base64'), 'base64'] }, null);
    assert.deepEqual([v2.kind, v2.elfSize], ['final', 10]);
    assert.equal(describeProgram(SYSTEM, { owner: 'NativeLoader1111111111111111111111111111111', executable: true, data: ['', 'base64'] }, null).kind, 'builtin');
  });
});
