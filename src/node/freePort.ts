// TCP ports for a torch.distributed group on this machine. A free port is one the kernel
// hands out for port 0 on 127.0.0.1, released at once for rank 0's store to take: another
// process may take it in between, so the launcher retries with a fresh one when rank 0
// reports the address in use. Nothing here listens for longer than the question takes.
import * as net from 'net';

const LOOPBACK = '127.0.0.1';

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: LOOPBACK, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('the kernel gave no port for 127.0.0.1:0'))));
    });
  });
}

/** Whether `port` can be listened on at 127.0.0.1 now (false when another process holds it). */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host: LOOPBACK, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
