/**
 * The single-event-loop ceiling for bench/rpc-reads: a server that reads HTTP/1.1 POSTs straight off
 * the socket (as the node's own fast path does, transport/post-fast-path.ts), parses each JSON-RPC
 * body and answers a constant getBalance-shaped result. No chain behind it: what one Node event loop
 * can answer under the same client at all. Run as its own process: PORT argument.
 */
import net from 'node:net';

const port = Number(process.argv[2]);
const HEAD_END = Buffer.from('\r\n\r\n');

net
  .createServer((socket) => {
    socket.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf(HEAD_END);
        if (end < 0) return;
        const length = Number(/content-length:\s*(\d+)/i.exec(pending.toString('latin1', 0, end))?.[1] ?? 0);
        const bodyStart = end + HEAD_END.length;
        if (pending.length < bodyStart + length) return;
        const request = JSON.parse(pending.toString('utf8', bodyStart, bodyStart + length)) as { id: unknown };
        pending = pending.subarray(bodyStart + length);
        const body = `{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":0},"id":${JSON.stringify(request.id)}}`;
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nConnection: keep-alive\r\n\r\n${body}`);
      }
    });
    socket.on('error', () => socket.destroy());
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
