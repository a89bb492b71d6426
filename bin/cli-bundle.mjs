// The `isthmus` command compiled into one ES module (dist/cli/isthmus.mjs), so the node starts without
// compiling TypeScript in its own process: tsx's loader (a hooks thread and the compiled sources kept
// in memory) cost ~45 MiB of resident memory and 10-15 s of start-up on a busy machine.
// `node bin/cli-bundle.mjs` builds it when it is missing or older than its sources (npm start and
// npm test do, beside the explorer's build); bin/isthmus.js runs it only while it is fresh and
// compiles the sources itself otherwise, so a changed source never runs stale.
//
// Every npm package stays an import resolved from node_modules at run time (native addons load as
// they do from source). The bundle sits two folders below the project root, as node-core/node/ and
// node-core/transport/ do, so the node core's paths relative to its own module (../../package.json,
// ../../renderer/dist, ../../node-core/runtime/sbf/assets) name the same files from the bundle.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newestMtime } from './newest-mtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'cli');
export const BUNDLE = path.join(outDir, 'isthmus.mjs');
const SOURCES = [path.join(root, 'node-core'), path.join(root, 'package.json'), fileURLToPath(import.meta.url)];

/** The bundle's URL when it exists and no source (file, or file in a folder) is newer than it; null otherwise. */
export function freshBundle(bundle = BUNDLE, sources = SOURCES) {
  let builtAt;
  try {
    builtAt = fs.statSync(bundle).mtimeMs;
  } catch {
    return null;
  }
  return sources.every((s) => newestMtime(s) <= builtAt) ? pathToFileURL(bundle).href : null;
}

export async function buildBundle() {
  const { build } = await import('vite');
  await build({
    root,
    configFile: false,
    logLevel: 'warn',
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      target: 'node20',
      minify: false,
      sourcemap: true,
      rollupOptions: {
        // The submission worker is an entry of its own: rpc/submission-decoder.ts starts it from beside its chunk.
        input: { isthmus: path.join(root, 'node-core', 'cli', 'main.ts'), 'submission-worker': path.join(root, 'node-core', 'rpc', 'submission-worker.ts') },
        output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
      },
    },
    ssr: { target: 'node', external: true },
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && !freshBundle()) {
  console.log('Building the isthmus command (node-core/ → dist/cli)…');
  await buildBundle();
}
