/** Listening on a port and closing a server: a taken port becomes an error naming the flag that changes it. */
import type http from 'node:http';

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly flag: string,
  ) {
    super(`port ${port} is already in use; choose another with ${flag} <port>`);
  }
}

/** Listens and resolves the port bound (the one asked for, or the free one picked for 0). */
export function listen(server: http.Server, port: number, host: string, flag: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (e.code === 'EADDRINUSE') reject(new PortInUseError(port, flag));
      else reject(e);
    };
    const onListening = () => {
      server.off('error', onError);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Stops accepting, drops kept-alive connections, and resolves once the server is closed. */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
