import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));

// Served by the node at /explorer/ (node-core/transport/explorer-static.ts) and loaded by the Electron window.
export default defineConfig({
  root,
  base: '/explorer/',
  plugins: [svelte()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    // One stylesheet, linked from index.html as before the app's chunk was split from the entry (main.ts).
    cssCodeSplit: false,
  },
  define: {
    // @solana/web3.js reads process.env in a few places; the bridge and dev pages load it on demand.
    'process.env.NODE_DEBUG': 'undefined',
  },
});
