/**
 * The layer rules of docs/ARCHITECTURE.md, checked by `npm run check:layers` (part of `npm test`).
 * Arrows point one way, from the ground up; a module may import its own layer and the layers below it.
 * transport/ (HTTP and WebSocket servers) knows no chain: it imports only common/. Nothing in
 * node-core/ imports electron/ or renderer/, and the renderer talks to a node only over JSON-RPC.
 */
const LAYERS = ['common', 'keys', 'runtime', 'store', 'ledger', 'evm', 'rpc', 'pubsub', 'node', 'cli'];

const layerRules = LAYERS.map((layer, i) => {
  const above = [...LAYERS.slice(i + 1), ...(layer === 'node' || layer === 'cli' ? [] : ['transport'])];
  return {
    name: `layer-${layer}`,
    comment: `node-core/${layer}/ may import only ${['transport', ...LAYERS.slice(0, i)].filter((l) => !above.includes(l)).join(', ') || 'npm packages'} besides itself (docs/ARCHITECTURE.md)`,
    severity: 'error',
    from: { path: `^node-core/${layer}/` },
    to: { path: `^node-core/(${above.join('|')})/` },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles: a cycle ties modules into one that cannot be understood or tested alone (a recursive Svelte component importing itself is not one).',
      severity: 'error',
      from: { path: '^((node-core|electron|renderer/src)/.+)$' },
      to: { circular: true, pathNot: '^$1$' },
    },
    ...layerRules,
    {
      name: 'transport-knows-no-chain',
      comment: 'node-core/transport/ serves bytes: it may import only common/.',
      severity: 'error',
      from: { path: '^node-core/transport/' },
      to: { path: '^node-core/', pathNot: '^node-core/(transport|common)/' },
    },
    {
      name: 'store-backends-stay-in-store',
      comment: "Outside store/, storage is reached through the Store interface (store/store.ts); a backend's codec is its own. Only the composition root (node/) opens the LMDB store.",
      severity: 'error',
      from: { path: '^node-core/', pathNot: '^node-core/(store|node)/' },
      to: { path: '^node-core/store/(lmdb-|memory-)' },
    },
    {
      name: 'lmdb-codec-stays-in-store',
      comment: "The LMDB record layouts are the LMDB backend's own.",
      severity: 'error',
      from: { path: '^node-core/', pathNot: '^node-core/store/' },
      to: { path: '^node-core/store/(lmdb-codec|lmdb-address-index)' },
    },
    {
      name: 'node-core-is-platform-neutral',
      comment: 'The node core runs headless, in tests and under Electron alike: it imports nothing of electron/ or renderer/.',
      severity: 'error',
      from: { path: '^node-core/' },
      to: { path: '^(electron|renderer)/' },
    },
    {
      name: 'renderer-talks-over-rpc',
      comment: 'The explorer talks to a node only over JSON-RPC and WebSocket, like any outside client (so it works against a remote node too).',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(node-core|electron)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|renderer/dist)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports are arrows too.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.svelte', '.json'] },
  },
};
