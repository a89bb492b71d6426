/**
 * Serves the built explorer (renderer/dist) at /explorer/ on the native HTTP port: content types,
 * index.html for client-side routes, no path outside the folder, and a CSP that fits the browser tab
 * and the Electron window alike. The explorer may be pointed at any node, so connect-src allows any
 * http(s)/ws(s) URL; scripts come only from this origin.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const EXPLORER_PATH = '/explorer/';

/** renderer/dist beside node-core/ in this checkout. */
export const DEFAULT_EXPLORER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../renderer/dist');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};

export const EXPLORER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  'connect-src http: https: ws: wss:',
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const NOT_BUILT = 'The explorer is not built: run `npm run build:explorer` (npm start and npm test build it too).\n';

/** A serveStatic handler for createHttpServer: true when the request was under /explorer. */
export function createExplorerStatic(dir: string = DEFAULT_EXPLORER_DIR): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const root = path.resolve(dir);
  return (req, res) => {
    const rawPath = (req.url ?? '/').split('?')[0]!.split('#')[0]!;
    if (rawPath === '/explorer') {
      res.writeHead(301, { location: EXPLORER_PATH });
      res.end();
      return true;
    }
    if (!rawPath.startsWith(EXPLORER_PATH)) return false;
    let rel: string;
    try {
      rel = decodeURIComponent(rawPath.slice(EXPLORER_PATH.length));
    } catch {
      return sendText(res, 400, 'Bad path\n'), true;
    }
    if (rel.includes('\0')) return sendText(res, 400, 'Bad path\n'), true;
    const index = path.join(root, 'index.html');
    if (!fs.existsSync(index)) return sendText(res, 503, NOT_BUILT), true;
    const file = path.resolve(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) return sendText(res, 404, 'Not found\n'), true;
    const target = isFile(file) ? file : path.extname(rel) && rel.startsWith('assets/') ? null : index;
    if (!target) return sendText(res, 404, 'Not found\n'), true;
    const body = fs.readFileSync(target);
    const type = CONTENT_TYPES[path.extname(target)] ?? 'application/octet-stream';
    // Hashed assets never change; index.html must be re-read so a rebuild shows at once.
    const cache = target.startsWith(path.join(root, 'assets') + path.sep) ? 'public, max-age=31536000, immutable' : 'no-cache';
    res.writeHead(200, {
      'content-type': type,
      'content-length': body.length,
      'cache-control': cache,
      'content-security-policy': EXPLORER_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function sendText(res: http.ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
