import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * The guides' TypeScript: every ```ts block of README.md and docs/*.md is type-checked against the typed client
 * (`@wallet-service/client`, resolved as the rest of the repository resolves it), so a renamed path, a body field
 * that changed or a helper that moved fails CI instead of misleading an app developer.
 *
 * One module per page: its blocks in the order they appear, so a block may use what an earlier block of the page
 * declared (`const prepared = …` in one, `prepared.items` in the next), as a reader following the page would. What
 * the page assumes without showing (the client `api`, values the curl walk-through made) is declared by the page
 * itself in an HTML comment, invisible on the rendered page, that is put in the module where it stands:
 *
 *   <!-- ts-preamble
 *   import type { WalletClient } from '@wallet-service/client';
 *   declare const api: WalletClient;   // made on the Registration page
 *   declare const passToken: string;   // what the walk-through got from the identity provider
 *   -->
 *
 * (its first line is the marker; the code follows on the next lines). The blocks themselves import what they show
 * (`import { idempotencyKey } from '@wallet-service/client'`), so a reader sees where each helper comes from.
 *
 * A block that is not meant to compile (pseudo-code, another language's client) is fenced ```ts nocheck and the page
 * says why; every other ```ts (or ```typescript) block is checked.
 *
 * Compiler options are the root tsconfig.json's, except: `module` ES2022 (a page reads as one script with top-level
 * await), `noUnusedLocals` off (a snippet names values for the reader that the page does not use again), no emit.
 */

const ROOT = join(__dirname, '..', '..');

export interface Piece {
  kind: 'preamble' | 'block';
  /** The block's number on its page (1-based, every ```ts block counted, nocheck ones too); 0 for a preamble. */
  block: number;
  /** The page's line where the piece's code starts (1-based). */
  line: number;
  code: string;
}

export interface Page {
  /** Relative to the repository: README.md, docs/transfers.md. */
  path: string;
  pieces: Piece[];
  /** Blocks fenced ```ts nocheck (their numbers). */
  skipped: number[];
}

/**
 * The ```ts blocks and ts-preamble comments of a markdown page, in order. Read line by line, so that a fence of any
 * length (```, ````, ~~~) and an indented one (in a list item: its content loses the indentation) are followed, and a
 * ts-preamble shown inside another fenced block (as docs/testing.md shows one) is not taken.
 */
export function parsePage(path: string, markdown: string): Page {
  const pieces: Piece[] = [];
  const skipped: number[] = [];
  const lines = markdown.split('\n');
  let block = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const fence = /^([ \t]*)(`{3,}|~{3,})\s*([^\s`]*)([^`]*)$/.exec(lines[i]!);
    if (fence) {
      const [, indent = '', marker = '', language = '', rest = ''] = fence;
      const close = new RegExp(`^[ \\t]*${marker[0]}{${marker.length},}\\s*$`);
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length && !close.test(lines[j]!); j += 1)
        body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
      if (language === 'ts' || language === 'typescript') {
        block += 1;
        if (/\bnocheck\b/.test(rest)) skipped.push(block);
        else pieces.push({ kind: 'block', block, line: i + 2, code: body.join('\n') });
      }
      i = j;
      continue;
    }
    if (/^\s*<!--\s*ts-preamble\b/.test(lines[i]!)) {
      if (lines[i]!.includes('-->'))
        throw new Error(`${path}:${i + 1}: a ts-preamble's code goes on the lines after it`);
      const code: string[] = [];
      let j = i + 1;
      for (; j < lines.length && !lines[j]!.includes('-->'); j += 1) code.push(lines[j]!);
      if (j < lines.length && lines[j]!.trim() !== '-->')
        throw new Error(`${path}:${j + 1}: put a ts-preamble's --> on a line of its own`);
      pieces.push({ kind: 'preamble', block: 0, line: i + 2, code: code.join('\n') });
      i = j;
    }
  }
  return { path, pieces, skipped };
}

/** The pages whose blocks are checked: the README and every guide. */
export function guidePages(): Page[] {
  const paths = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  return paths.map((path) => parsePage(path, readFileSync(join(ROOT, path), 'utf8')));
}

/** The module a page becomes, and where each of its lines came from. */
function pageModule(page: Page): { text: string; origin: (line: number) => string } {
  const lines: string[] = ['export {}; // a module, even when the page imports nothing'];
  const origins: { from: number; piece: Piece }[] = [];
  for (const piece of page.pieces) {
    lines.push(`// ${page.path}:${piece.line}`);
    origins.push({ from: lines.length + 1, piece });
    lines.push(...piece.code.replace(/\n$/, '').split('\n'));
  }
  return {
    text: `${lines.join('\n')}\n`,
    origin: (line) => {
      const found = origins.filter((o) => o.from <= line).at(-1);
      if (!found) return `${page.path} (the module's header)`;
      const { piece } = found;
      const pageLine = piece.line + (line - found.from);
      return piece.kind === 'preamble'
        ? `${page.path}:${pageLine}, its ts-preamble`
        : `${page.path}:${pageLine}, block ${piece.block} (line ${line - found.from + 1} of the block)`;
    },
  };
}

/** The root tsconfig's options, with the changes snippets need (see above). */
function compilerOptions(): ts.CompilerOptions {
  const file = join(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(file, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, file);
  return {
    ...parsed.options,
    module: ts.ModuleKind.ES2022,
    noUnusedLocals: false,
    noEmit: true,
    sourceMap: false,
    declaration: false,
  };
}

/**
 * Type-checks the pages, one virtual module each (beside the page: `docs/transfers.md.ts`, never written), in one
 * program. Answers one message per error: the page and line, the block, and what tsc says.
 */
export function checkPages(pages: Page[]): Map<string, string[]> {
  const options = compilerOptions();
  const modules = new Map(pages.map((page) => [join(ROOT, `${page.path}.ts`), { page, ...pageModule(page) }]));
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => modules.has(name) || fileExists.call(host, name);
  host.readFile = (name) => modules.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, language, onError, create) => {
    const module = modules.get(name);
    return module
      ? ts.createSourceFile(name, module.text, language, true)
      : getSourceFile.call(host, name, language, onError, create);
  };
  const program = ts.createProgram({ rootNames: [...modules.keys()], options, host });
  const failures = new Map(pages.map((page) => [page.path, [] as string[]]));
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  for (const diagnostic of global)
    for (const list of failures.values())
      list.push(`tsc: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  for (const [name, module] of modules) {
    const source = program.getSourceFile(name)!;
    for (const diagnostic of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
      failures.get(module.page.path)!.push(`${module.origin(line + 1)}: TS${diagnostic.code}: ${message}`);
    }
  }
  return failures;
}

describe("the guides' TypeScript blocks", () => {
  const pages = guidePages();
  /** A page that must fail, checked in the same program: the test can tell a broken snippet. */
  const broken = parsePage(
    'docs/broken-on-purpose.md',
    [
      '<!-- ts-preamble',
      "import { createWalletClient } from '@wallet-service/client';",
      'declare const api: ReturnType<typeof createWalletClient>;',
      '-->',
      '```ts',
      "await api.GET('/v1/account/profile');",
      '```',
      '```ts',
      "await api.POST('/api/v1/charge/execute', { body: { sourc: '004', amount: '1000', currency: 'KRW' } });",
      "await api.GET('/v1/account/profle', {});",
      '```',
    ].join('\n'),
  );
  let failures: Map<string, string[]>;
  beforeAll(() => {
    failures = checkPages([...pages, broken]);
  });

  const checked = pages.filter((page) => page.pieces.some((piece) => piece.kind === 'block'));

  it.each(checked.map((page) => [page.path]))('%s compiles against the typed client', (path) => {
    expect(failures.get(path)).toEqual([]);
  });

  it('finds the blocks: every guide that walks through calls shows the typed client too', () => {
    const withBlocks = checked.map((page) => page.path);
    for (const guide of [
      'docs/registration.md',
      'docs/bank-and-charging.md',
      'docs/wallets-and-signing.md',
      'docs/sign-in-and-recovery.md',
      'docs/transfers.md',
      'docs/events-and-webhooks.md',
      'docs/test-clock.md',
      'docs/assets-and-quotes.md',
    ])
      expect(withBlocks).toContain(guide);
    const webhooks = pages.find((page) => page.path === 'docs/events-and-webhooks.md')!;
    expect(webhooks.pieces.some((piece) => piece.kind === 'block' && /verifyWebhook\(/.test(piece.code))).toBe(true);
  });

  it('reads the blocks as markdown does: indented fences, longer fences, no preamble from inside another block', () => {
    const page = parsePage(
      'docs/parsing.md',
      [
        '````text',
        '<!-- ts-preamble',
        'declare const shown: string;',
        '-->',
        '```ts',
        'shown;',
        '```',
        '````',
        '- a list item:',
        '',
        '  ```ts',
        '  const indented = 1;',
        '  ```',
        '```ts nocheck',
        'not TypeScript',
        '```',
      ].join('\n'),
    );
    expect(page.pieces).toEqual([{ kind: 'block', block: 1, line: 12, code: 'const indented = 1;' }]);
    expect(page.skipped).toEqual([2]);
  });

  it('fails a snippet that does not compile, naming the page, the block and what tsc says', () => {
    const messages = failures.get('docs/broken-on-purpose.md')!;
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^docs\/broken-on-purpose\.md:9, block 2 \(line 1 of the block\): TS2561: .*'sourc'/);
    expect(messages[1]).toMatch(/^docs\/broken-on-purpose\.md:10, block 2 \(line 2 of the block\): TS2345: .*profle/);
  });
});
