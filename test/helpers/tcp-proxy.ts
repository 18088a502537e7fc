import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP pass-through in front of a server (PostgreSQL here), for fault drills. `restart(ms)` does to clients what a
 * database restart does: every open connection is cut, and new ones are refused until the server is back.
 * `blackHole()` does what a NAT or load balancer that forgot a flow does: the connection stays open and goes silent.
 */
export class TcpProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  /** Connections still carried (not black-holed). */
  private readonly flows = new Set<{ client: Socket; upstream: Socket }>();
  private downUntil = 0;
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<number> {
    this.server = createServer((client) => {
      if (Date.now() < this.downUntil) {
        client.destroy();
        return;
      }
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      const flow = { client, upstream };
      this.flows.add(flow);
      client.on('close', () => this.flows.delete(flow));
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

  /**
   * Every open connection stops carrying anything, silently: both ends stay connected, what either sends is read and
   * dropped (no back-pressure, no FIN, no RST reaches the other), as behind a NAT that forgot the flow. New
   * connections are carried.
   */
  blackHole(): void {
    for (const flow of this.flows) {
      const { client, upstream } = flow;
      client.unpipe(upstream);
      upstream.unpipe(client);
      for (const socket of [client, upstream]) socket.on('data', () => undefined).resume();
      this.flows.delete(flow);
    }
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

/**
 * A TCP load balancer in front of several servers (API processes here), as Caddy is in production: connections go
 * round robin, and one whose server refuses it (a killed process) is tried on the next, so clients only see the
 * connections that were open on a process when it died.
 */
export class TcpBalancer {
  private server?: Server;
  private next = 0;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly targets: Array<{ host: string; port: number }>) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<number> {
    this.server = createServer((client) => {
      client.pause();
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      const attempt = (tries: number) => {
        const target = this.targets[this.next++ % this.targets.length]!;
        const upstream = connect(target.port, target.host);
        upstream.once('error', () => {
          upstream.destroy();
          if (tries + 1 < this.targets.length && !client.destroyed) attempt(tries + 1);
          else client.destroy();
        });
        upstream.once('connect', () => {
          this.sockets.add(upstream);
          upstream.on('close', () => {
            this.sockets.delete(upstream);
            client.destroy();
          });
          upstream.on('error', () => client.destroy());
          client.on('close', () => upstream.destroy());
          client.pipe(upstream);
          upstream.pipe(client);
          client.resume();
        });
      };
      attempt(0);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
