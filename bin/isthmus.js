#!/usr/bin/env node
// The `isthmus` command. TypeScript is loaded through tsx so that the same sources run under
// Node 20 here and Node 22 inside Electron without a separate build step.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../node-core/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
