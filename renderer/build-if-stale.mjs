// Builds the explorer (vite build) when renderer/dist is missing or older than its sources, so
// `npm start` and `npm test` on a fresh clone serve a current explorer without a separate step.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newestMtime } from '../bin/newest-mtime.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const built = path.join(here, 'dist', 'index.html');

const sources = ['src', 'index.html', 'vite.config.ts'].map((p) => path.join(here, p));
const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0;
if (builtAt && sources.every((s) => newestMtime(s) <= builtAt)) process.exit(0);
console.log('Building the explorer (renderer/ → renderer/dist)…');
const vite = path.join(here, '..', 'node_modules', 'vite', 'bin', 'vite.js');
const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--config', path.join(here, 'vite.config.ts')], { stdio: 'inherit', cwd: here });
process.exit(r.status ?? 1);
