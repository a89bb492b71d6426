/** The /explorer/ static route: files with their types, the app for client routes, no way out of the folder, 503 unbuilt. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createExplorerStatic, EXPLORER_CSP } from '../../node-core/transport/explorer-static.ts';

let dir: string;
let server: http.Server;
let base: string;
let serve: ReturnType<typeof createExplorerStatic>;

async function get(p: string): Promise<{ status: number; type: string | null; body: string; headers: Headers }> {
  // Raw paths (fetch would normalise "..").
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: (server.address() as { port: number }).port, path: p }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, type: (res.headers['content-type'] as string) ?? null, body, headers: new Headers(res.headers as Record<string, string>) }));
    }).on('error', reject);
  });
}

describe('explorer static route', () => {
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-static-'));
    fs.mkdirSync(path.join(dir, 'dist', 'assets'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist', 'index.html'), '<!doctype html><title>app</title>');
    fs.writeFileSync(path.join(dir, 'dist', 'assets', 'app-1.js'), 'console.log(1)');
    fs.writeFileSync(path.join(dir, 'dist', 'assets', 'app-1.css'), 'body{}');
    fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
    let current = createExplorerStatic(path.join(dir, 'dist'));
    serve = (req, res) => current(req, res);
    server = http.createServer((req, res) => {
      if (!serve(req, res)) {
        res.writeHead(404);
        res.end('not mine');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    (globalThis as { setStaticDir?: (d: string) => void }).setStaticDir = (d) => (current = createExplorerStatic(d));
  });
  after(() => {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('index, assets with their content types, the CSP', async () => {
    const index = await get('/explorer/');
    assert.equal(index.status, 200);
    assert.match(index.type!, /text\/html/);
    assert.equal(index.headers.get('content-security-policy'), EXPLORER_CSP);
    assert.equal(index.headers.get('cache-control'), 'no-cache');
    const js = await get('/explorer/assets/app-1.js');
    assert.match(js.type!, /text\/javascript/);
    assert.match(js.headers.get('cache-control')!, /immutable/);
    assert.match((await get('/explorer/assets/app-1.css')).type!, /text\/css/);
    assert.ok(base);
  });
  test('client routes get the app; missing assets 404; other paths are not this route', async () => {
    assert.equal((await get('/explorer/tx/abc')).body, '<!doctype html><title>app</title>');
    assert.equal((await get('/explorer/evm/block/0x12')).status, 200);
    assert.equal((await get('/explorer/assets/nope.js')).status, 404);
    assert.equal((await get('/explorer')).status, 301);
    assert.equal((await get('/other')).body, 'not mine');
  });
  test('no path leaves the folder', async () => {
    for (const p of ['/explorer/../secret.txt', '/explorer/..%2fsecret.txt', '/explorer/%2e%2e/secret.txt', '/explorer/assets/..%2f..%2fsecret.txt']) {
      const r = await get(p);
      assert.notEqual(r.body, 'secret', p);
    }
    assert.equal((await get('/explorer/%00')).status, 400);
    assert.equal((await get('/explorer/%E0%A4%A')).status, 400);
  });
  test('an unbuilt explorer answers 503 naming the build command', async () => {
    (globalThis as unknown as { setStaticDir: (d: string) => void }).setStaticDir(path.join(dir, 'missing'));
    const r = await get('/explorer/');
    assert.equal(r.status, 503);
    assert.match(r.body, /npm run build:explorer/);
  });
});
