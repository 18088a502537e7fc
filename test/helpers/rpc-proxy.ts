import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A JSON-RPC pass-through in front of a real chain, for fault drills: `down` refuses every call (connections are
 * dropped), `refuse` only calls of those JSON-RPC methods, `delayMs` makes every call slow, `downAfter` goes down
 * right after passing on the first call whose body it matches (a broadcast reaches the chain, then the RPC is gone),
 * `hold` keeps the chain's answer to the first call it matches until its `until` resolves (the caller has read the
 * chain as it was, and waits while the test changes it).
 * The chain behind it keeps running.
 */
export class RpcProxy {
  down = false;
  downAfter: ((body: string) => boolean) | null = null;
  refuse = new Set<string>();
  delayMs = 0;
  hold: { match: (body: string) => boolean; until: () => Promise<void> } | null = null;
  calls = 0;
  /** The JSON-RPC methods passed on or refused, in order (a test clears it to watch from a point on). */
  methods: string[] = [];
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
        this.methods.push(...this.methodsOf(Buffer.concat(chunks)));
        if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
        if (this.down || (this.refuse.size && this.methodsOf(Buffer.concat(chunks)).some((m) => this.refuse.has(m)))) {
          req.socket.destroy();
          return;
        }
        try {
          const upstream = await fetch(this.target, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: Buffer.concat(chunks),
          });
          if (this.downAfter?.(Buffer.concat(chunks).toString())) {
            this.down = true;
            this.downAfter = null;
            req.socket.destroy(); // the broadcast reached the chain; its answer never reaches the caller
            return;
          }
          const answer = Buffer.from(await upstream.arrayBuffer());
          const hold = this.hold;
          if (hold?.match(Buffer.concat(chunks).toString())) {
            this.hold = null;
            await hold.until();
          }
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(answer);
        } catch {
          req.socket.destroy();
        }
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  private methodsOf(body: Buffer): string[] {
    try {
      const parsed = JSON.parse(body.toString()) as { method?: string } | Array<{ method?: string }>;
      return (Array.isArray(parsed) ? parsed : [parsed]).map((call) => call.method ?? '');
    } catch {
      return [];
    }
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}
