/**
 * The by-hand check that a stock Otterscan attaches to the node (issue 17): CI cannot reach GitHub to
 * build Otterscan, so this runs where a built Otterscan folder exists (its `npx vite build` output, the
 * `dist` folder). Not part of `npm test`; it downloads nothing.
 *
 *   node --import tsx scripts/otterscan-by-hand.ts /path/to/otterscan/dist [--out test-artifacts/otterscan]
 *
 * It starts a node on free ports with a temp ledger (test/helpers/node.ts), makes EVM activity that
 * each of Otterscan's pages needs (value transfers both ways, an ERC-20-like contract's events, a
 * factory-made contract, an internal transfer, a nested call tree, a reverted transaction, a bridge
 * deposit with the CLI and a withdrawal through the precompile), serves the Otterscan build with a
 * config.json that points it at the node's EVM endpoint (chain info given, Sourcify pointed at this
 * server, no assets server, no beacon API), and drives Debian's Chromium through Otterscan's pages,
 * saving a screenshot of each. Every JSON-RPC request Otterscan sends and every error the node answers
 * are written to rpc-log.json beside the screenshots, with the browser's console errors and any request
 * the page tried to make to another host (refused: nothing leaves the machine). It exits non-zero when
 * the node answered an error to a method Otterscan's level 8 promises, when a page did not show what it
 * should, or when the page threw.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Contract, ContractFactory, Interface, type EventFragment, JsonRpcProvider, Wallet, getAddress, parseEther, type TransactionReceipt } from 'ethers';
import type { Page, Request } from 'playwright-core';
import { BRIDGE_ADDRESS } from '../node-core/evm/constants.ts';
import { deriveEvmKeys } from '../node-core/keys/evm-keys.ts';
import { writeKeypairFile } from '../node-core/keys/keypair.ts';
import { OTS_LEVEL_8_METHODS } from '../node-core/rpc/eth/ots.ts';
import { launchBrowser } from '../test/helpers/browser.ts';
import { ROOT, runToExit } from '../test/helpers/cli-process.ts';
import { compileFixture, type Compiled } from '../test/helpers/evm.ts';
import { rpc, startTestNode, waitFor } from '../test/helpers/node.ts';

const WORDS = 'test test test test test test test test test test test junk';
const BRIDGE_ABI = ['function transferToNative(bytes32 native_recipient) payable'];
const VIEWPORT = { width: 1280, height: 900 };
/** How long one page may take to show its data on a busy machine (the waits end on their condition). */
const PAGE_TIMEOUT_MS = 60_000;

function parseArgs(argv: string[]): { dist: string; out: string } {
  const rest = [...argv];
  let out = path.join(ROOT, 'test-artifacts', 'otterscan');
  const i = rest.indexOf('--out');
  if (i >= 0) {
    out = path.resolve(rest[i + 1] ?? '');
    rest.splice(i, 2);
  }
  const dist = rest[0] ? path.resolve(rest[0]) : '';
  if (!dist || !fs.existsSync(path.join(dist, 'index.html'))) {
    console.error('usage: node --import tsx scripts/otterscan-by-hand.ts <built Otterscan folder with index.html> [--out DIR]');
    process.exit(2);
  }
  return { dist, out };
}

// ---- the chain's activity ----

interface Activity {
  alice: string;
  bob: string;
  carol: string;
  transferHash: string;
  transferBackHash: string;
  token: string;
  mintHash: string;
  factory: string;
  payHash: string;
  child: string;
  makeHash: string;
  revertedHash: string;
  traceMe: string;
  traceHash: string;
  depositHash: string;
  withdrawalHash: string;
  withdrawalBlock: number;
}

interface Fixtures {
  token: Compiled;
  factory: Compiled;
  traceMe: Compiled;
}

function compileFixtures(): Fixtures {
  return { token: compileFixture('MiniToken.sol', 'MiniToken'), factory: compileFixture('Factory.sol', 'Factory'), traceMe: compileFixture('TraceMe.sol', 'TraceMe') };
}

async function makeActivity(evmUrl: string, rpcUrl: string, nativeKeyFile: string, fixtures: Fixtures): Promise<Activity> {
  const provider = new JsonRpcProvider(evmUrl, undefined, { pollingInterval: 50, cacheTimeout: -1 });
  const [aliceKey, bobKey] = deriveEvmKeys(WORDS, 2).map((k) => `0x${Buffer.from(k.privateKey).toString('hex')}`);
  const alice = new Wallet(aliceKey!, provider);
  const bob = new Wallet(bobKey!, provider);
  const carol = Wallet.createRandom().address;
  const mined = async (p: Promise<{ wait(): Promise<TransactionReceipt | null> }>) => (await (await p).wait())!;

  const transfer = await mined(alice.sendTransaction({ to: bob.address, value: parseEther('1') }));
  const transferBack = await mined(bob.sendTransaction({ to: alice.address, value: parseEther('0.25') }));

  const token = (await (await new ContractFactory(fixtures.token.abi as never, fixtures.token.bytecode, alice).deploy()).waitForDeployment()) as Contract;
  const mint = await mined(token.getFunction('mint')(bob.address, 1000n));

  const factory = (await (await new ContractFactory(fixtures.factory.abi as never, fixtures.factory.bytecode, alice).deploy()).waitForDeployment()) as Contract;
  const pay = await mined(factory.getFunction('pay')(carol, { value: parseEther('0.5') }));
  const make = await mined(factory.getFunction('make')(7n, { value: parseEther('0.1') }));
  const child = getAddress(`0x${make.logs[0]!.data.slice(26)}`);
  // Sent with its own gas limit (estimating would refuse it): mined with status 0.
  const failing = await factory.getFunction('makeAndFail')(1n, { gasLimit: 500_000 });
  const reverted = await waitFor(() => provider.getTransactionReceipt(failing.hash), { what: 'the reverted receipt', timeoutMs: 60_000 });
  if (reverted!.status !== 0) throw new Error('makeAndFail did not revert');

  const traceMe = (await (await new ContractFactory(fixtures.traceMe.abi as never, fixtures.traceMe.bytecode, alice).deploy()).waitForDeployment()) as Contract;
  const trace = await mined(traceMe.getFunction('run')(5n, { value: 1000n }));

  // Native → EVM with the CLI: the deposit is a transaction from the bridge's address.
  const heightBefore = await provider.getBlockNumber();
  const cli = await runToExit(['evm', 'transfer-to-evm', '--keypair', nativeKeyFile, '--url', rpcUrl, bob.address, '1.5']);
  if (cli.code !== 0) throw new Error(`transfer-to-evm failed: ${cli.stderr}`);
  const depositHash = await waitFor(
    async () => {
      const latest = await provider.getBlockNumber();
      for (let n = heightBefore + 1; n <= latest; n++) {
        const block = await provider.send('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]);
        const found = (block.transactions as Array<{ from: string; to: string; hash: string }>).find((t) => t.from === BRIDGE_ADDRESS.toLowerCase() && t.to === bob.address.toLowerCase());
        if (found) return found.hash;
      }
      return '';
    },
    { what: 'the deposit in an EVM block', timeoutMs: 60_000 },
  );

  // EVM → native through the precompile: an internal transfer to the bridge's address.
  const bridge = new Contract(BRIDGE_ADDRESS, BRIDGE_ABI, alice);
  const recipient = `0x${Buffer.from(deriveEvmKeys(WORDS, 3)[2]!.privateKey).toString('hex')}`; // any 32 bytes name a native account
  const withdrawal = await mined(bridge.getFunction('transferToNative')(recipient, { value: parseEther('2') }));

  provider.destroy();
  return {
    alice: alice.address,
    bob: bob.address,
    carol,
    transferHash: transfer.hash,
    transferBackHash: transferBack.hash,
    token: await token.getAddress(),
    mintHash: mint.hash,
    factory: await factory.getAddress(),
    payHash: pay.hash,
    child,
    makeHash: make.hash,
    revertedHash: failing.hash,
    traceMe: await traceMe.getAddress(),
    traceHash: trace.hash,
    depositHash,
    withdrawalHash: withdrawal.hash,
    withdrawalBlock: withdrawal.blockNumber,
  };
}

// ---- serving Otterscan ----

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.ico': 'image/x-icon',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain',
};

/** Where this server answers as Otterscan's assets server would (Otterscan's own build has /assets/). */
const LOCAL_ASSETS = '/local-assets';

/**
 * The part of Otterscan's assets server this check needs: the method selectors and event topics of the
 * ABIs used here (signatures/<8 hex>, topic0/<64 hex>, as its 4-byte and topic0 databases hold them),
 * so Otterscan names the calls and decodes the logs. No logos, no chain files.
 */
function localAssets(abis: unknown[][]): Map<string, string> {
  const files = new Map<string, string>();
  for (const abi of abis) {
    const iface = new Interface(abi as never);
    iface.forEachFunction((f) => files.set(`${LOCAL_ASSETS}/signatures/${f.selector.slice(2)}`, f.format('sighash')));
    // Indexed parameters marked, as that database writes them: Otterscan decodes the topics with them.
    const event = (e: EventFragment) => `${e.name}(${e.inputs.map((i) => `${i.format('sighash')}${i.indexed ? ' indexed' : ''}`).join(',')})`;
    iface.forEachEvent((e) => files.set(`${LOCAL_ASSETS}/topic0/${e.topicHash.slice(2)}`, event(e)));
  }
  return files;
}

/**
 * Serves the build as Otterscan's nginx does: files, else index.html (routes are the app's);
 * /config.json from `config`, and `assets` under LOCAL_ASSETS.
 */
async function serveOtterscan(dist: string, config: (origin: string) => object, assets: Map<string, string>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const origin = `http://${req.headers.host}`;
    if (url.pathname === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(config(origin)));
      return;
    }
    if (url.pathname.startsWith(LOCAL_ASSETS) || url.pathname.startsWith('/no-sourcify')) {
      const text = assets.get(url.pathname);
      if (text === undefined) res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(text);
      return;
    }
    const file = path.join(dist, path.normalize(decodeURIComponent(url.pathname)));
    if (file.startsWith(dist) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      res.writeHead(200, { 'content-type': MIME[path.extname(file)] ?? 'application/octet-stream' }).end(fs.readFileSync(file));
    } else if (path.extname(url.pathname) === '') {
      res.writeHead(200, { 'content-type': MIME['.html'] }).end(fs.readFileSync(path.join(dist, 'index.html')));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

// ---- recording what Otterscan asks ----

interface RpcExchange {
  page: string;
  method: string;
  params: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

class Recorder {
  exchanges: RpcExchange[] = [];
  consoleErrors: Array<{ page: string; text: string }> = [];
  external: Array<{ page: string; url: string }> = [];
  pageName = 'start';
  inFlight = 0;

  constructor(private readonly evmUrl: string) {}

  attach(page: Page): void {
    page.on('console', (m) => {
      if (m.type() === 'error') this.consoleErrors.push({ page: this.pageName, text: m.text() });
    });
    page.on('pageerror', (e) => this.consoleErrors.push({ page: this.pageName, text: `pageerror: ${e.message}` }));
    page.on('request', (r) => this.isRpc(r) && this.inFlight++);
    page.on('requestfailed', (r) => this.isRpc(r) && this.inFlight--);
    page.on('requestfinished', (r) => {
      if (!this.isRpc(r)) return;
      void this.record(r).finally(() => this.inFlight--);
    });
  }

  private isRpc(r: Request): boolean {
    return r.url().startsWith(this.evmUrl) && r.method() === 'POST';
  }

  private async record(r: Request): Promise<void> {
    const name = this.pageName;
    const sent = JSON.parse(r.postData() ?? 'null');
    let answer: unknown = null;
    try {
      const response = await r.response();
      answer = response ? JSON.parse(await response.text()) : null;
    } catch (e) {
      // The page went away before its body was read: the request is still listed, without an answer.
      answer = { error: { code: 0, message: `(answer not read: ${(e as Error).message})` } };
    }
    const requests = Array.isArray(sent) ? sent : [sent];
    const answers = (Array.isArray(answer) ? answer : [answer]) as Array<{ id?: unknown; result?: unknown; error?: RpcExchange['error'] } | null>;
    for (const q of requests) {
      const a = answers.find((x) => x && (x.id === q.id || x.id === undefined));
      this.exchanges.push({ page: name, method: q.method, params: q.params, ...(a?.error ? { error: a.error } : { result: a?.result }) });
    }
  }

  /** Waits until Otterscan has no request to the node in flight and `ready` holds. */
  async settle(page: Page, ready: () => Promise<boolean>): Promise<void> {
    await waitFor(async () => this.inFlight === 0 && (await ready()) && this.inFlight === 0, { what: `${this.pageName} to show its data`, timeoutMs: PAGE_TIMEOUT_MS, everyMs: 100 });
    // Two frames, so what the last answer rendered is painted (the function runs in the page).
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
  }
}

// ---- the pages ----

interface Visit {
  name: string;
  path: string;
  /** Texts the page must show once it has its data. */
  expect: Array<string | RegExp>;
  /**
   * Set where Otterscan cannot show the page for a reason outside the node: then `expect` is what it
   * shows instead (so a change either way is noticed), and the run does not fail on it.
   */
  known?: string;
}

async function main(): Promise<void> {
  const { dist, out } = parseArgs(process.argv.slice(2));
  fs.mkdirSync(out, { recursive: true });
  const node = await startTestNode({ mnemonic: WORDS, slotMs: 100 });
  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-key-'));
  const keyFile = path.join(keyDir, 'id.json');
  writeKeypairFile(keyFile, node.keys.devAccounts[0]!);
  const evmUrl = node.evmRpcUrl.replace(/\/$/, '');
  const chainId = Number(BigInt((await rpc(evmUrl, 'eth_chainId', [])).result));
  const fixtures = compileFixtures();
  const assets = localAssets([fixtures.token.abi, fixtures.factory.abi, fixtures.traceMe.abi, new Interface(BRIDGE_ABI).fragments.map((f) => JSON.parse(f.format('json')))]);
  const otterscan = await serveOtterscan(dist, (origin) => ({
    erigonURL: evmUrl,
    assetsURLPrefix: `${origin}${LOCAL_ASSETS}`,
    chainInfo: { name: `Isthmus EVM (${chainId})`, faucets: [], nativeCurrency: { name: 'VLX', symbol: 'VLX', decimals: 18 } },
    // One Sourcify source, on this server (it answers 404): Otterscan's default is sourcify.dev.
    sourcify: { sources: { 'none (by-hand check)': { url: `${origin}/no-sourcify`, backendFormat: 'RepositoryV1' } } },
  }), assets);
  const browser = await launchBrowser();
  const recorder = new Recorder(evmUrl);
  const failures: string[] = [];
  const known: string[] = [];
  try {
    console.log(`node: ${node.evmRpcUrl} (EVM), ${node.rpcUrl} (native); Otterscan at ${otterscan.url}`);
    const a = await makeActivity(evmUrl, node.rpcUrl, keyFile, fixtures);
    console.log('activity:', JSON.stringify(a, null, 2));

    const context = await browser.newContext({ viewport: VIEWPORT });
    // Nothing leaves the machine: requests to any other host are refused and listed.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(otterscan.url) || url.startsWith(evmUrl) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      recorder.external.push({ page: recorder.pageName, url });
      return route.abort();
    });
    const page = await context.newPage();
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    recorder.attach(page);

    const mintTx = (await rpc(evmUrl, 'eth_getTransactionByHash', [a.mintHash])).result;
    const mintBlock = Number(BigInt(mintTx.blockNumber));
    const visits: Visit[] = [
      { name: '01-home', path: '/', expect: [/Latest block/i] },
      { name: '02-block', path: `/block/${mintBlock}`, expect: [`#${mintBlock}`, /Transactions?/] },
      { name: '03-block-transactions', path: `/block/${mintBlock}/txs`, expect: [a.mintHash.slice(0, 10)] },
      { name: '04-tx-transfer', path: `/tx/${a.transferHash}`, expect: [/Success/, a.transferHash] },
      { name: '05-tx-token-mint-overview', path: `/tx/${a.mintHash}`, expect: [/Success/, /Logs \(3\)/] },
      { name: '06-tx-token-mint-logs', path: `/tx/${a.mintHash}/logs`, expect: [/Transfer\s*\(/, /Approval\s*\(/, /Noted\s*\(/] },
      { name: '07-tx-nested-overview', path: `/tx/${a.traceHash}`, expect: [/Success/] },
      { name: '08-tx-nested-trace', path: `/tx/${a.traceHash}/trace`, expect: [/CREATE/i, /CALL/i] },
      { name: '09-tx-internal-transfer', path: `/tx/${a.payHash}`, expect: [/Success/, /Transfer/i] },
      { name: '10-tx-factory-make', path: `/tx/${a.makeHash}`, expect: [/Success/] },
      { name: '11-tx-reverted', path: `/tx/${a.revertedHash}`, expect: [/Fail/i, /no child/] },
      {
        name: '12-tx-bridge-deposit',
        path: `/tx/${a.depositHash}`,
        expect: [/RangeError: Division by zero/],
        known: "Otterscan's overview divides gas used by the gas limit, and a deposit's gas limit is 0 (Velas's register_swap_tx_in_evm record, which its hash covers)",
      },
      { name: '13-tx-bridge-deposit-trace', path: `/tx/${a.depositHash}/trace`, expect: [/CALL/i] },
      { name: '14-tx-bridge-withdrawal', path: `/tx/${a.withdrawalHash}`, expect: [/Success/] },
      { name: '15-address-alice', path: `/address/${a.alice}`, expect: [a.transferHash.slice(0, 10), a.transferBackHash.slice(0, 10)] },
      { name: '16-address-bob', path: `/address/${a.bob}`, expect: [a.depositHash.slice(0, 10)] },
      { name: '17-contract-created-by-factory', path: `/address/${a.child}`, expect: [/Contract/i, a.makeHash.slice(0, 10)] },
      { name: '18-contract-token', path: `/address/${a.token}`, expect: [/Contract/i, a.mintHash.slice(0, 10)] },
      { name: '19-address-by-nonce', path: `/address/${a.alice}?nonce=1`, expect: [/Transaction Details/, /Contract Creation|Created/i] },
      { name: '21-block-by-hash', path: `/block/${mintTx.blockHash}`, expect: [mintTx.blockHash, new RegExp(`Block Height:\\s*${mintBlock}\\b`)] },
      { name: '22-address-alice-oldest-page', path: `/address/${a.alice}/txs/last`, expect: [a.transferHash.slice(0, 10), a.transferBackHash.slice(0, 10)] },
      { name: '20-tx-nested-statediff', path: `/tx/${a.traceHash}/statediff`, expect: [/does not support the trace_replayTransaction method/] },
    ];

    for (const visit of visits) {
      recorder.pageName = visit.name;
      const started = Date.now();
      await page.goto(otterscan.url + visit.path);
      try {
        await recorder.settle(page, async () => {
          const text = await page.innerText('body');
          return visit.expect.every((e) => (typeof e === 'string' ? text.includes(e) : e.test(text)));
        });
      } catch (e) {
        failures.push(`${visit.name}: ${(e as Error).message}`);
      }
      if (visit.known) known.push(`${visit.name}: ${visit.known}`);
      await page.screenshot({ path: path.join(out, `${visit.name}.png`) });
      console.log(`${visit.name} ${visit.path}: ${Date.now() - started} ms`);
    }
    await context.close();
  } finally {
    await browser.close();
    await otterscan.close();
    await node.stop();
    fs.rmSync(keyDir, { recursive: true, force: true });
  }

  const methods = [...new Set(recorder.exchanges.map((e) => e.method))].sort();
  const errors = recorder.exchanges.filter((e) => e.error);
  const promised = new Set<string>(OTS_LEVEL_8_METHODS);
  for (const e of errors) if (promised.has(e.method) || e.method.startsWith('eth_') && e.method !== 'eth_call') failures.push(`${e.page}: ${e.method} ${JSON.stringify(e.params)} -> ${JSON.stringify(e.error)}`);
  const knownPages = new Set(known.map((k) => k.slice(0, k.indexOf(':'))));
  for (const c of recorder.consoleErrors) if (c.text.startsWith('pageerror:') && !knownPages.has(c.page)) failures.push(`${c.page}: ${c.text}`);
  const log = {
    methods: Object.fromEntries(methods.map((m) => [m, recorder.exchanges.filter((e) => e.method === m).length])),
    errors,
    consoleErrors: recorder.consoleErrors,
    refusedExternalRequests: recorder.external,
    failures,
    known,
    exchanges: recorder.exchanges,
  };
  fs.writeFileSync(path.join(out, 'rpc-log.json'), `${JSON.stringify(log, null, 1)}\n`);
  console.log('methods Otterscan sent:', log.methods);
  console.log(`error answers: ${errors.length}`);
  for (const e of errors) console.log(`  ${e.page}: ${e.method} ${JSON.stringify(e.params)} -> ${JSON.stringify(e.error)}`);
  console.log(`console errors: ${recorder.consoleErrors.length}; refused external requests: ${recorder.external.length}`);
  for (const k of known) console.log(`KNOWN ${k}`);
  for (const f of failures) console.log(`FAIL ${f}`);
  process.exitCode = failures.length ? 1 : 0;
}

await main();
