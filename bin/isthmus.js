#!/usr/bin/env node
// The `isthmus` command. It runs the compiled bundle (bin/cli-bundle.mjs) while that is fresh;
// otherwise TypeScript is loaded through tsx, so the same sources run under Node 20 here and
// Node 22 inside Electron without a separate build step.
import { freshBundle } from './cli-bundle.mjs';

let main;
const bundle = freshBundle();
if (bundle) {
  ({ main } = await import(bundle));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../node-core/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
