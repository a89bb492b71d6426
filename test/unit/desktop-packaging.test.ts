/**
 * The packaging inputs agree with each other: package.json's main is the file the main-process build
 * writes, electron-builder.yml names files that exist, and the committed icons are what
 * build-resources/make-icons.mjs draws (real PNG, ICO and ICNS files of the stated sizes).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/cli-process.ts';

const read = (p: string) => fs.readFileSync(path.join(ROOT, p));

function pngSize(buf: Buffer): [number, number] {
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(buf.toString('latin1', 12, 16), 'IHDR');
  return [buf.readUInt32BE(16), buf.readUInt32BE(20)];
}

test("package.json's main is the bundle the main-process build writes, and the scripts exist", async () => {
  const pkg = JSON.parse(read('package.json').toString()) as { main: string; scripts: Record<string, string> };
  const vite = read('electron/vite.config.ts').toString();
  assert.match(vite, /outDir: 'dist\/electron'/);
  // Entries are named after their input: electron/main.ts is main.mjs (the submission worker is the other entry).
  assert.match(vite, /input: \{ main: 'electron\/main\.ts'/);
  assert.match(vite, /entryFileNames: '\[name\]\.mjs'/);
  assert.equal(pkg.main, 'dist/electron/main.mjs');
  assert.match(pkg.scripts['build:desktop']!, /vite build --config electron\/vite\.config\.ts/);
  assert.match(pkg.scripts.dist!, /build:desktop/);
  assert.match(pkg.scripts.dist!, /electron-builder --config electron-builder\.yml/);
  assert.match(pkg.scripts['bench:explorer']!, /bench\/explorer\.ts/);
});

test('electron-builder.yml packs the bundle, the preload and the explorer, with icons that exist', () => {
  const yml = read('electron-builder.yml').toString();
  for (const entry of ['dist/electron/**', 'electron/preload.cjs', 'renderer/dist/**', 'package.json']) assert.ok(yml.includes(`  - ${entry}\n`), entry);
  for (const target of ['AppImage', 'deb', 'dmg', 'nsis']) assert.ok(yml.includes(target), target);
  const icons = [...yml.matchAll(/icon: (\S+)/g)].map((m) => m[1]!);
  assert.deepEqual(icons, ['build-resources/icons', 'build-resources/icon.icns', 'build-resources/icon.ico']);
  for (const icon of icons) assert.ok(fs.existsSync(path.join(ROOT, icon)), icon);
});

test("electron-builder.yml packs the sBPF engine: litesvm's addon unpacked from the asar, the SPL builds it loads", () => {
  const yml = read('electron-builder.yml').toString();
  assert.match(yml, /asarUnpack:\n  - "node_modules\/litesvm-\*\/\*\*"\n/);
  assert.ok(yml.includes('  - node-core/runtime/sbf/assets/*.so\n'));
  // The bundle (dist/electron/main.mjs) reads them two folders up, at the same path under the root.
  for (const so of ['spl_token-3.5.0.so', 'spl_associated_token_account-1.1.1.so']) {
    assert.ok(fs.existsSync(fileURLToPath(new URL(`../../node-core/runtime/sbf/assets/${so}`, pathToFileURL(path.join(ROOT, 'dist/electron/main.mjs'))))), so);
  }
  assert.match(read('node-core/runtime/sbf/engine.ts').toString(), /new URL\('\.\.\/\.\.\/node-core\/runtime\/sbf\/assets\/', import\.meta\.url\)/);
});

test('the icons are real images of their sizes', () => {
  assert.deepEqual(pngSize(read('build-resources/icon.png')), [512, 512]);
  for (const s of [16, 32, 48, 64, 128, 256, 512]) assert.deepEqual(pngSize(read(`build-resources/icons/${s}x${s}.png`)), [s, s]);

  const ico = read('build-resources/icon.ico');
  assert.equal(ico.readUInt16LE(2), 1, 'ICO type');
  const count = ico.readUInt16LE(4);
  const sizes = Array.from({ length: count }, (_, i) => {
    const e = 6 + 16 * i;
    const size = ico[e]! || 256;
    const [w] = pngSize(ico.subarray(ico.readUInt32LE(e + 12), ico.readUInt32LE(e + 12) + ico.readUInt32LE(e + 8)));
    assert.equal(w, size);
    return size;
  });
  assert.deepEqual(sizes, [16, 32, 48, 64, 128, 256]);

  const icns = read('build-resources/icon.icns');
  assert.equal(icns.toString('latin1', 0, 4), 'icns');
  assert.equal(icns.readUInt32BE(4), icns.length);
  const entries: Array<[string, number]> = [];
  for (let o = 8; o < icns.length; o += icns.readUInt32BE(o + 4)) entries.push([icns.toString('latin1', o, o + 4), pngSize(icns.subarray(o + 8))[0]]);
  assert.deepEqual(entries, [['ic07', 128], ['ic08', 256], ['ic09', 512]]);
});

test('the committed icons are what make-icons.mjs draws', () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'isthmus-icons-'));
  try {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'build-resources/make-icons.mjs'), out], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    for (const f of ['icon.png', 'icon.ico', 'icon.icns', 'icons/16x16.png', 'icons/256x256.png', 'icons/512x512.png']) {
      assert.ok(fs.readFileSync(path.join(out, f)).equals(read(`build-resources/${f}`)), f);
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
