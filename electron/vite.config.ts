/**
 * Builds Electron's main process into dist/electron/main.mjs (`npm run build:desktop`): electron/main.ts
 * and the node core it imports, compiled from TypeScript into ES modules (main.mjs, the submission
 * worker's entry and the chunk they share). Every npm package stays an
 * import resolved from node_modules at run time, electron included, so native addons (lmdb, keccak,
 * secp256k1, sodium-native) and wasm load exactly as they do for the CLI.
 *
 * The bundle sits two folders below the project root, as node-core/node/ and node-core/transport/ do, so the node core's
 * paths relative to its own module (../../package.json for the version, ../../renderer/dist for the
 * explorer) name the same files from the bundle.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  logLevel: 'warn',
  build: {
    ssr: true,
    outDir: 'dist/electron',
    emptyOutDir: true,
    target: 'node22',
    minify: false,
    sourcemap: true,
    rollupOptions: {
      // The submission worker is an entry of its own: rpc/submission-decoder.ts starts it from beside its
      // chunk, so every chunk sits in the one folder.
      input: { main: 'electron/main.ts', 'submission-worker': 'node-core/rpc/submission-worker.ts' },
      output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
    },
  },
  ssr: { target: 'node', external: true },
});
