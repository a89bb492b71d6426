/** bin/cli-bundle.mjs: the compiled command runs only while no source is newer than it. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { freshBundle as fresh } from '../../bin/cli-bundle.mjs';

test('freshBundle: missing, older than a source (in a nested folder), or newer than all', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-bundle-'));
  try {
    const bundle = path.join(dir, 'dist', 'isthmus.mjs');
    const sources = path.join(dir, 'src');
    fs.mkdirSync(path.join(sources, 'deep'), { recursive: true });
    const source = path.join(sources, 'deep', 'a.ts');
    fs.writeFileSync(source, 'export {};');
    const config = path.join(dir, 'package.json');
    fs.writeFileSync(config, '{}');
    assert.equal(fresh(bundle, [sources, config]), null);

    fs.mkdirSync(path.dirname(bundle));
    fs.writeFileSync(bundle, '');
    const at = (file: string, seconds: number) => fs.utimesSync(file, seconds, seconds);
    for (const p of [source, path.join(sources, 'deep'), sources, config]) at(p, 1_000);
    at(bundle, 2_000);
    assert.equal(fresh(bundle, [sources, config]), pathToFileURL(bundle).href);

    at(source, 3_000);
    assert.equal(fresh(bundle, [sources, config]), null);
    at(source, 1_000);
    at(config, 3_000);
    assert.equal(fresh(bundle, [sources, config]), null);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the built command carries the submission worker, and it answers on its thread', { skip: !fresh() && 'the bundle is not built or is stale (node bin/cli-bundle.mjs)' }, async () => {
  const { SubmissionDecoder } = await import('../../node-core/rpc/submission-decoder.ts');
  const decoder = new SubmissionDecoder(new URL('../../dist/cli/submission-worker.mjs', import.meta.url));
  try {
    assert.equal(await decoder.whenReady(), true);
    await assert.rejects(decoder.decode('@@@@', 'base64'), /invalid base64 encoding/);
    assert.equal(decoder.runsOnWorker, true);
  } finally {
    await decoder.close();
  }
});
