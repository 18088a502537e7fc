import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP pass-through in front of a server (PostgreSQL here), for fault drills. `restart(ms)` does to clients what a
 * database restart does: every open connection is cut, and new ones are refused until the server is back.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private downUntil = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<number> {
    this.server = createServer((client) => {
      if (Date.now() < this.downUntil) { client.destroy(); return; }
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => { client.destroy(); upstream.destroy(); });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  /** Cuts every connection and refuses new ones for `ms`. */
  restart(ms: number): void {
    this.downUntil = Date.now() + ms;
    for (const socket of this.sockets) socket.destroy();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
