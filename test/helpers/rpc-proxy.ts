import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A JSON-RPC pass-through in front of a real chain, for fault drills: `down` refuses every call (connections are
 * dropped), `delayMs` makes every call slow. The chain behind it keeps running.
 */
export class RpcProxy {
  down = false;
  delayMs = 0;
  calls = 0;
  private readonly sockets = new Set<Socket>();
  private server?: Server;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        this.calls += 1;
        if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
        if (this.down) { req.socket.destroy(); return; }
        try {
          const upstream = await fetch(this.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) });
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(Buffer.from(await upstream.arrayBuffer()));
        } catch {
          req.socket.destroy();
        }
      });
    });
    this.server.on('connection', (socket) => { this.sockets.add(socket); socket.on('close', () => this.sockets.delete(socket)); });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
