// The structure docs/architecture.md describes, held against the code: every import between the
// rooms of src/ is one the page's table allows (a must-fail twin shows the checker catches one it
// does not), and no room imports itself in a circle; no source file is over 600 lines, and in the
// rooms that carry the product no class is over 400 lines and no function over 80; the
// framework-free entry priv-stark/facilitator bundles without Fastify or a database driver, and the
// merchants' priv-stark/server without the core's threads and loader; profile facts are spelled in
// src/scheme/ only.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(ROOT, 'src');

/** What one room may import: whole rooms, single files of a room, and rooms for types only. */
interface Allowed {
  readonly rooms: Set<string>;
  readonly files: Set<string>;
  readonly typeRooms: Set<string>;
}

/** The "may import" column of docs/architecture.md, by room. */
function rulesOf(markdown: string): Map<string, Allowed> {
  const rules = new Map<string, Allowed>();
  for (const line of markdown.split('\n')) {
    const cells = /^\| `([^`]+)` \|[^|]*\| ([^|]*) \|$/.exec(line.trim());
    if (!cells) continue;
    const allowed: Allowed = { rooms: new Set(), files: new Set(), typeRooms: new Set() };
    for (const token of cells[2]!.split(',').map((t) => t.trim())) {
      if (token === '—' || token === '') continue;
      if (token.startsWith('types from ')) allowed.typeRooms.add(token.slice('types from '.length));
      else if (token.endsWith('.ts')) allowed.files.add(token);
      else allowed.rooms.add(token);
    }
    rules.set(cells[1]!, allowed);
  }
  return rules;
}

/** One import of a source file: the file it names (relative to src/) and whether it is types only. */
interface Edge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Static and dynamic relative imports and re-exports of a module's text. */
function importsOf(from: string, text: string): Edge[] {
  const edges: Edge[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+'(\.[^']+)'/g;
  for (const match of text.matchAll(statement)) {
    const names = /\{([^}]*)\}/.exec(match[3]!)?.[1];
    const everyNameATypeImport =
      names !== undefined &&
      !/^\s*\w/.test(match[3]!.replace(/\{[^}]*\}/, '')) &&
      names
        .split(',')
        .filter((n) => n.trim())
        .every((n) => /^\s*type\s/.test(n));
    edges.push({
      from,
      to: resolveFrom(from, match[4]!),
      typeOnly: match[2] !== undefined || everyNameATypeImport,
    });
  }
  for (const match of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g))
    edges.push({ from, to: resolveFrom(from, match[1]!), typeOnly: false });
  return edges;
}

function resolveFrom(from: string, specifier: string): string {
  return normalize(join(dirname(from), specifier)).replace(/\.js$/, '.ts');
}

const roomOf = (file: string) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);

/** The imports the rules do not allow, as `from → to` lines. */
function violations(edges: readonly Edge[], rules: Map<string, Allowed>): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const [from, to] = [roomOf(edge.from), roomOf(edge.to)];
    if (from === to) continue;
    const allowed = rules.get(from);
    const ok =
      allowed !== undefined &&
      (allowed.rooms.has(to) ||
        allowed.files.has(edge.to) ||
        (edge.typeOnly && allowed.typeRooms.has(to)));
    if (!ok) out.push(`${edge.from} → ${edge.to}${edge.typeOnly ? ' (types)' : ''}`);
  }
  return out;
}

const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
const rules = rulesOf(doc);
const files = sourceFiles(SRC).map((path) => relative(SRC, path));
const edges = files.flatMap((file) => importsOf(file, readFileSync(join(SRC, file), 'utf8')));

describe('the rooms of src/', () => {
  it('are exactly the rooms the page describes', () => {
    expect([...new Set(files.map(roomOf))].sort()).toEqual([...rules.keys()].sort());
  });

  it('import only what docs/architecture.md allows', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(violations(edges, rules)).toEqual([]);
  });

  it('must-fail twin: an import the table does not allow is caught, and a type import is told apart', () => {
    const upward: Edge = { from: 'core/facade.ts', to: 'http/app.ts', typeOnly: false };
    expect(violations([upward], rules)).toEqual(['core/facade.ts → http/app.ts']);
    expect(
      violations(
        [{ from: 'facilitator/x.ts', to: 'ledger/sqlite-store.ts', typeOnly: false }],
        rules,
      ),
    ).toHaveLength(1);
    expect(
      violations([{ from: 'facilitator/x.ts', to: 'ledger/store.ts', typeOnly: true }], rules),
    ).toEqual([]);
    expect(
      violations([{ from: 'client/x.ts', to: 'pool-node/server.ts', typeOnly: false }], rules),
    ).toHaveLength(1);
    // The client takes the pool node's wire types, never its schemas' code.
    expect(
      violations(
        [{ from: 'client/x.ts', to: 'pool-node/transfer-schema.ts', typeOnly: true }],
        rules,
      ),
    ).toEqual([]);
    expect(
      violations(
        [{ from: 'client/x.ts', to: 'pool-node/transfer-schema.ts', typeOnly: false }],
        rules,
      ),
    ).toHaveLength(1);
    expect(
      importsOf(
        'a/b.ts',
        "import type { X } from './c.js';\nimport { type Y, Z } from '../d/e.js';\nconst m = await import('../f/g.js');",
      ),
    ).toEqual([
      { from: 'a/b.ts', to: 'a/c.ts', typeOnly: true },
      { from: 'a/b.ts', to: 'd/e.ts', typeOnly: false },
      { from: 'a/b.ts', to: 'f/g.ts', typeOnly: false },
    ]);
  });
});

/** The import circles inside one room (type imports count: a circle of types is still one). */
function circlesOf(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges)
    if (roomOf(edge.from) === roomOf(edge.to) && edge.from !== edge.to)
      next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  // Tarjan's strongly connected components; every component of two or more files is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** The limits every room holds (issue 22): lines per file, and per class and function where it says. */
const FILE_MAX_LINES = 600;
const CLASS_MAX_LINES = 400;
const FUNCTION_MAX_LINES = 80;
/** The rooms that carry the product, where classes and functions are held small too. */
const SMALL_PARTS_ROOMS = new Set([
  'chain',
  'client',
  'mcp',
  'ledger',
  'pool-node',
  'facilitator',
  'scheme',
]);
/** Generated files, exempt from the limits (nothing written by hand belongs here). */
const GENERATED = new Set([
  // napi-rs writes it from the binding's Rust signatures (`napi build --dts`).
  'core/native-binding.d.ts',
]);

/** What breaks the limits in one file, as `file: what (lines)` lines. */
function oversized(file: string, text: string): string[] {
  if (GENERATED.has(file)) return [];
  const found: string[] = [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line;
  const total = lineOf(source.getEnd()) + (text.endsWith('\n') ? 0 : 1);
  if (total > FILE_MAX_LINES) found.push(`${file}: file (${total})`);
  if (!SMALL_PARTS_ROOMS.has(roomOf(file))) return found;
  const visit = (node: ts.Node) => {
    const lines = lineOf(node.getEnd()) - lineOf(node.getStart(source)) + 1;
    const name = (node as { name?: ts.Node }).name?.getText(source) ?? '(anonymous)';
    if (ts.isClassLike(node) && lines > CLASS_MAX_LINES)
      found.push(`${file}: class ${name} (${lines})`);
    if (ts.isFunctionLike(node) && 'body' in node && node.body && lines > FUNCTION_MAX_LINES)
      found.push(`${file}: function ${name} (${lines})`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size of things', () => {
  it('no file over 600 lines; in the product rooms no class over 400, no function over 80', () => {
    const found = files.flatMap((file) => oversized(file, readFileSync(join(SRC, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('must-fail twin: a long function, a long class and a long file are each found', () => {
    const body = (n: number) =>
      Array.from({ length: n }, (_, i) => `  const a${i} = ${i};`).join('\n');
    expect(oversized('ledger/x.ts', `function f() {\n${body(80)}\n}\n`)).toEqual([
      'ledger/x.ts: function f (82)',
    ]);
    expect(oversized('ledger/x.ts', `function f() {\n${body(78)}\n}\n`)).toEqual([]);
    expect(
      oversized(
        'mcp/x.ts',
        `class C {\n  m = () => {\n${body(60)}\n  };\n${Array.from({ length: 7 }, (_, k) => `  m${k}() {\n${body(50)}\n  }`).join('\n')}\n}\n`,
      ),
    ).toEqual(['mcp/x.ts: class C (428)']);
    // Functions are held in the product rooms only; files everywhere.
    expect(oversized('core/x.ts', `function f() {\n${body(100)}\n}\n`)).toEqual([]);
    expect(oversized('core/x.ts', `${body(601)}\n`)).toEqual(['core/x.ts: file (601)']);
    expect(oversized('core/native-binding.d.ts', `${body(700)}\n`)).toEqual([]);
  });
});

describe('circles inside a room', () => {
  it('no room imports itself in a circle', () => {
    expect(circlesOf(edges)).toEqual([]);
  });

  it('must-fail twin: a circle of types is found, a chain is not', () => {
    const edge = (from: string, to: string, typeOnly = false): Edge => ({ from, to, typeOnly });
    expect(
      circlesOf([edge('core/a.ts', 'core/b.ts'), edge('core/b.ts', 'core/a.ts', true)]),
    ).toEqual([['core/a.ts', 'core/b.ts']]);
    expect(circlesOf([edge('core/a.ts', 'core/b.ts'), edge('core/b.ts', 'core/c.ts')])).toEqual([]);
    // Across rooms it is the table's business, not a circle in a room.
    expect(circlesOf([edge('core/a.ts', 'scheme/b.ts'), edge('scheme/b.ts', 'core/a.ts')])).toEqual(
      [],
    );
  });
});

describe('priv-stark/facilitator', () => {
  it('bundles without Fastify, the pool node, the HTTP layer, a database driver or the OpenTelemetry SDK', async () => {
    const result = await build({
      entryPoints: [join(SRC, 'facilitator/index.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const external = new Set(
      Object.values(result.metafile.inputs).flatMap((input) =>
        input.imports.filter((i) => i.external).map((i) => i.path),
      ),
    );
    expect(inputs.some((path) => path.startsWith('src/facilitator/'))).toBe(true);
    for (const path of inputs)
      expect(path, path).not.toMatch(
        /^src\/(http|pool-node|service|cli|chain)\/|^src\/ledger\/(sqlite|postgres)/,
      );
    for (const name of external)
      expect(name, name).not.toMatch(
        /^(fastify|@fastify\/|fastify-plugin|pg|pg-|better-sqlite3|viem|solc|@foundry-rs\/)/,
      );
    // Traces: the API alone (a no-op until the service registers an SDK).
    for (const name of external) expect(name, name).not.toMatch(/^@opentelemetry\/(?!api$)/);
    expect(external).toContain('@opentelemetry/api');
    // Must-fail twin: the service entry does load them.
    const service = await build({
      entryPoints: [join(SRC, 'service/index.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    const serviceExternal = Object.values(service.metafile.inputs).flatMap((input) =>
      input.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(serviceExternal).toEqual(
      expect.arrayContaining([
        'fastify',
        'pg',
        'better-sqlite3',
        '@opentelemetry/sdk-node',
        '@fastify/otel',
      ]),
    );
  }, 60_000);
});

describe('priv-stark/server', () => {
  /** The modules of `src/` an entry's bundle holds. */
  async function bundled(entry: string): Promise<string[]> {
    const result = await build({
      entryPoints: [join(SRC, entry)],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    return Object.keys(result.metafile.inputs);
  }

  it('bundles leaf modules of the core only, never its index, threads or loader (merchants bundle it, Next.js among them)', async () => {
    const inputs = await bundled('server/index.ts');
    expect(inputs.some((path) => path.startsWith('src/server/'))).toBe(true);
    for (const path of inputs)
      expect(path, path).not.toMatch(
        /^src\/core\/(index|load|native|wasm|worker-threads|verifier-threads|wasm-threads|create-core)\.ts$/,
      );
    // Must-fail twin: the package's root entry does load them.
    expect(await bundled('index.ts')).toEqual(
      expect.arrayContaining(['src/core/index.ts', 'src/core/verifier-threads.ts']),
    );
  }, 60_000);
});

describe('priv-stark/client', () => {
  /** The npm packages an entry's bundle imports. */
  async function packagesOf(entry: string): Promise<Set<string>> {
    const result = await build({
      entryPoints: [join(SRC, entry)],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      logLevel: 'silent',
    });
    return new Set(
      Object.values(result.metafile.inputs).flatMap((input) =>
        input.imports.filter((i) => i.external).map((i) => i.path),
      ),
    );
  }

  it('loads no viem: a wallet that only pays never does; the chain module is its own entry (priv-stark/client/chain)', async () => {
    const client = await packagesOf('client/index.ts');
    for (const name of client) expect(name, name).not.toMatch(/^(viem|solc|@foundry-rs\/)(\/|$)/);
    // Must-fail twin: the chain entry does.
    expect([...(await packagesOf('client/chain.ts'))]).toContain('viem');
  }, 60_000);
});

describe('profile facts', () => {
  // The values of src/scheme/profile.ts, as code would spell them (comments are left out: examples
  // in documentation may name them).
  const FACTS = [
    /'priv-stark\/v1'/,
    /'shielded:devnet'/,
    /'dUSD'/,
    /128 \* 1024/,
    /1n << 62n/,
    /2n \*\* 62n/,
    /TREE_DEPTH = |DEPTH = 32/,
  ];
  const code = (text: string) =>
    text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

  it('are spelled in src/scheme/ (and the tree depth in the core) only', () => {
    const found: string[] = [];
    for (const file of files) {
      if (file.startsWith('scheme/') || file === 'core/facade.ts') continue;
      const text = code(readFileSync(join(SRC, file), 'utf8'));
      for (const fact of FACTS) if (fact.test(text)) found.push(`${file}: ${fact.source}`);
    }
    expect(found).toEqual([]);
    // Must-fail twin: the scanner finds a restated fact.
    expect(
      FACTS.some((fact) => fact.test(code("const network = 'shielded:devnet'; // the pool"))),
    ).toBe(true);
    expect(
      FACTS.some((fact) => fact.test(code("/** e.g. 'shielded:devnet' */ const x = 1;"))),
    ).toBe(false);
  });
});
