// Draws the app icon and writes it in the forms electron-builder takes, with nothing but Node's zlib:
//   build-resources/icon.png          512×512 (macOS and Windows can derive theirs from it)
//   build-resources/icons/NxN.png     16…512 for Linux (AppImage, deb)
//   build-resources/icon.ico          Windows (PNG-compressed entries: 16, 32, 48, 64, 128, 256)
//   build-resources/icon.icns         macOS (ic07 128, ic08 256, ic09 512, PNG payloads)
// The picture: two spaces (the native one teal, the EVM one violet) joined by a narrow neck of land,
// an isthmus, on a dark rounded square. Run: node build-resources/make-icons.mjs [OUT_DIR]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const here = path.resolve(process.argv[2] ?? path.dirname(fileURLToPath(import.meta.url)));

// ---- the picture, as coverage-weighted colour at a point of the unit square ----

const TEAL = [45, 212, 191];
const VIOLET = [139, 92, 246];
const BG_TOP = [17, 24, 39];
const BG_BOTTOM = [30, 44, 84];
const mix = (a, b, t) => a.map((v, i) => v + (b[i] - v) * t);

function insideRoundedSquare(x, y, margin, radius) {
  const lo = margin + radius;
  const hi = 1 - margin - radius;
  const dx = Math.max(lo - x, 0, x - hi);
  const dy = Math.max(lo - y, 0, y - hi);
  return x >= margin && x <= 1 - margin && y >= margin && y <= 1 - margin && dx * dx + dy * dy <= radius * radius;
}

const LEFT = { x: 0.26, y: 0.5, r: 0.155 };
const RIGHT = { x: 0.74, y: 0.5, r: 0.155 };
const inDisc = (d, x, y) => (x - d.x) ** 2 + (y - d.y) ** 2 <= d.r * d.r;
// The neck: thinnest in the middle, widening towards both discs.
const inNeck = (x, y) => x > LEFT.x && x < RIGHT.x && Math.abs(y - 0.5) <= 0.024 + 2.2 * (x - 0.5) ** 2;
// A ring of light on each disc, so they read as lands rather than dots.
const onRim = (d, x, y) => {
  const r = Math.hypot(x - d.x, y - d.y);
  return r <= d.r && r >= d.r - 0.018;
};

/** [r, g, b, a] at (x, y), or null outside the icon. */
function colourAt(x, y) {
  if (!insideRoundedSquare(x, y, 0.04, 0.19)) return null;
  let c = mix(BG_TOP, BG_BOTTOM, y);
  const land = inDisc(LEFT, x, y) || inDisc(RIGHT, x, y) || inNeck(x, y);
  if (land) {
    const t = Math.min(1, Math.max(0, (x - LEFT.x) / (RIGHT.x - LEFT.x)));
    c = mix(TEAL, VIOLET, t);
    if (onRim(LEFT, x, y) || onRim(RIGHT, x, y)) c = mix(c, [255, 255, 255], 0.35);
  }
  return c;
}

/** RGBA pixels of the icon at `size`, 4×4 samples a pixel for smooth edges. */
function render(size) {
  const S = 4;
  const px = Buffer.alloc(size * size * 4);
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      let r = 0, g = 0, b = 0, a = 0;
      for (let sj = 0; sj < S; sj++) {
        for (let si = 0; si < S; si++) {
          const c = colourAt((i + (si + 0.5) / S) / size, (j + (sj + 0.5) / S) / size);
          if (!c) continue;
          r += c[0]; g += c[1]; b += c[2]; a++;
        }
      }
      const o = (j * size + i) * 4;
      if (a > 0) {
        px[o] = Math.round(r / a);
        px[o + 1] = Math.round(g / a);
        px[o + 2] = Math.round(b / a);
      }
      px[o + 3] = Math.round((a / (S * S)) * 255);
    }
  }
  return px;
}

// ---- PNG ----

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---- ICO and ICNS, with PNG payloads ----

function ico(entries) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(entries.length, 4);
  let offset = 6 + 16 * entries.length;
  const dir = entries.map(({ size, data }) => {
    const e = Buffer.alloc(16);
    e[0] = size >= 256 ? 0 : size; // 0 means 256
    e[1] = size >= 256 ? 0 : size;
    e.writeUInt16LE(1, 4); // colour planes
    e.writeUInt16LE(32, 6); // bits per pixel
    e.writeUInt32LE(data.length, 8);
    e.writeUInt32LE(offset, 12);
    offset += data.length;
    return e;
  });
  return Buffer.concat([header, ...dir, ...entries.map((e) => e.data)]);
}

function icns(entries) {
  const parts = entries.map(({ type, data }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32BE(data.length + 8, 4);
    return Buffer.concat([head, data]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'latin1');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

// ---- write ----

const SIZES = [16, 32, 48, 64, 128, 256, 512];
const pngs = new Map(SIZES.map((s) => [s, png(s, render(s))]));
fs.mkdirSync(path.join(here, 'icons'), { recursive: true });
fs.writeFileSync(path.join(here, 'icon.png'), pngs.get(512));
for (const s of SIZES) fs.writeFileSync(path.join(here, 'icons', `${s}x${s}.png`), pngs.get(s));
fs.writeFileSync(path.join(here, 'icon.ico'), ico([16, 32, 48, 64, 128, 256].map((size) => ({ size, data: pngs.get(size) }))));
fs.writeFileSync(
  path.join(here, 'icon.icns'),
  icns([
    { type: 'ic07', data: pngs.get(128) },
    { type: 'ic08', data: pngs.get(256) },
    { type: 'ic09', data: pngs.get(512) },
  ]),
);
console.log(`wrote icon.png, icon.ico, icon.icns and icons/{${SIZES.map((s) => `${s}x${s}`).join(',')}}.png in ${here}`);
