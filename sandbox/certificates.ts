import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pem {
  key: string;
  cert: string;
}

/**
 * A private certificate authority (a server's certificate the client must verify against a CA of its own, a client
 * certificate the server demands), made with the openssl command line: the tests' TLS with providers, and the
 * sandbox's Travel Rule network (the VASPs' and the service's TRP certificates). Its files stay in `dir` (a fresh
 * temporary folder unless given); `days` is how long its certificates are valid.
 */
export class TestCa {
  readonly ca: Pem;
  private readonly dir: string;
  private readonly days: string;

  constructor(name = 'Wallet Test CA', options: { dir?: string; days?: number } = {}) {
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'wallet-ca-'));
    this.days = String(options.days ?? 2);
    this.openssl(
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', this.days].concat([
        '-subj',
        `/CN=${name}`,
        '-keyout',
        this.file('ca.key'),
        '-out',
        this.file('ca.pem'),
      ]),
    );
    this.ca = { key: this.read('ca.key'), cert: this.read('ca.pem') };
  }

  /** A certificate signed by this CA: for a server (its host names) or a client (its name). */
  issue(commonName: string, use: { server?: string[]; client?: boolean }): Pem {
    const base = commonName.replace(/\W/g, '_');
    const extensions = [
      'basicConstraints=CA:FALSE',
      `extendedKeyUsage=${[use.server ? 'serverAuth' : '', use.client ? 'clientAuth' : ''].filter(Boolean).join(',')}`,
      ...(use.server
        ? [`subjectAltName=${use.server.map((h) => (/^[\d.]+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',')}`]
        : []),
    ];
    writeFileSync(this.file(`${base}.ext`), `${extensions.join('\n')}\n`);
    this.openssl(
      ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', `/CN=${commonName}`].concat([
        '-keyout',
        this.file(`${base}.key`),
        '-out',
        this.file(`${base}.csr`),
      ]),
    );
    this.openssl(
      [
        'x509',
        '-req',
        '-in',
        this.file(`${base}.csr`),
        '-CA',
        this.file('ca.pem'),
        '-CAkey',
        this.file('ca.key'),
      ].concat([
        '-CAcreateserial',
        '-days',
        this.days,
        '-extfile',
        this.file(`${base}.ext`),
        '-out',
        this.file(`${base}.pem`),
      ]),
    );
    return { key: this.read(`${base}.key`), cert: this.read(`${base}.pem`) };
  }

  /** The path of a file of this CA's folder (`ca.pem`, `<name>.pem`, `<name>.key`: settings take files). */
  path(name: string): string {
    return this.file(name);
  }

  /** Writes PEM text to a file of this CA's folder (settings take files): its path. */
  write(name: string, pem: string): string {
    writeFileSync(this.file(name), pem);
    return this.file(name);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private file(name: string): string {
    return join(this.dir, name);
  }

  private read(name: string): string {
    return readFileSync(this.file(name), 'utf8');
  }

  private openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'pipe' });
  }
}
