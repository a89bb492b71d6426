/**
 * The transport ceiling for bench/rpc-reads: a bare Node HTTP server that parses each JSON-RPC
 * request and answers a constant getBalance-shaped result. Run as its own process: PORT argument.
 */
import http from 'node:http';

const port = Number(process.argv[2]);
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const request = JSON.parse(Buffer.concat(chunks).toString()) as { id: unknown };
    const body = JSON.stringify({ jsonrpc: '2.0', result: { context: { slot: 1 }, value: 0 }, id: request.id });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
