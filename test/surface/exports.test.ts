// The package's public names held still through the wave-3 restructure (issue 22): every name each
// entry point of package.json's `exports` makes public — values and types told apart — equals the
// snapshot the landed main wrote before the first move (test/fixtures/surface/exports.json). Read
// from the barrels' syntax alone (the tsconfig's `verbatimModuleSyntax` marks every type export
// `type`), following `export *`. `UPDATE_SURFACE=1` rewrites the snapshot: only for a deliberate
// change of the public surface, never to let a move pass.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SNAPSHOT = join(ROOT, 'test/fixtures/surface/exports.json');

/** One exported name: `value` (a runtime binding) or `type` (erased). */
type Exported = `${'value' | 'type'} ${string}`;

/** The module a relative specifier of `from` names (`.js` written, `.ts` on disk). */
function resolve(from: string, specifier: string): string {
  return normalize(join(dirname(from), specifier.replace(/\.js$/, '.ts')));
}

const hasExport = (node: ts.Node) =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** Whether a declaration exported by name is a value, or a type only. */
function kindOf(node: ts.Node): 'value' | 'type' {
  return ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) ? 'type' : 'value';
}

/** What the module at `path` exports, by name, following re-exports. */
function exportsOf(path: string, seen = new Set<string>()): Set<Exported> {
  const out = new Set<Exported>();
  if (seen.has(path)) return out;
  seen.add(path);
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
  // Local declarations, so that `export { x }` without `from` knows what `x` is.
  const local = new Map<string, 'value' | 'type'>();
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations)
        if (ts.isIdentifier(d.name)) local.set(d.name.text, 'value');
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement)) &&
      statement.name
    ) {
      local.set(statement.name.text, kindOf(statement));
    }
  }
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const target =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? resolve(path, statement.moduleSpecifier.text)
          : null;
      if (!statement.exportClause) {
        if (target) for (const name of exportsOf(target, seen)) out.add(name);
        continue;
      }
      if (ts.isNamespaceExport(statement.exportClause)) {
        out.add(`value ${statement.exportClause.name.text}`);
        continue;
      }
      for (const element of statement.exportClause.elements) {
        const name = element.name.text;
        const typeOnly = statement.isTypeOnly || element.isTypeOnly;
        if (typeOnly) out.add(`type ${name}`);
        else if (target) out.add(`value ${name}`);
        else out.add(`${local.get(element.propertyName?.text ?? name) ?? 'value'} ${name}`);
      }
    } else if (hasExport(statement)) {
      for (const [name, kind] of local) {
        const declared = ts.isVariableStatement(statement)
          ? statement.declarationList.declarations.some(
              (d) => ts.isIdentifier(d.name) && d.name.text === name,
            )
          : 'name' in statement && (statement as { name?: ts.Identifier }).name?.text === name;
        if (declared) out.add(`${kind} ${name}`);
      }
    }
  }
  return out;
}

/** Every entry point of package.json's `exports` with a module, to its sorted public names. */
function surface(): Record<string, Exported[]> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { import?: string }>;
  };
  const result: Record<string, Exported[]> = {};
  for (const [entry, target] of Object.entries(manifest.exports)) {
    const built = typeof target === 'string' ? target : target.import;
    if (!built?.startsWith('./dist/')) continue;
    const source = join(ROOT, built.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    result[entry] = [...exportsOf(source)].sort();
  }
  return result;
}

describe('the public surface', () => {
  it('every entry point exports exactly the names of the snapshot', () => {
    const now = surface();
    if (process.env.UPDATE_SURFACE === '1')
      writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 2)}\n`);
    const snapshot = JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as Record<string, Exported[]>;
    expect(Object.keys(now).sort()).toEqual(Object.keys(snapshot).sort());
    for (const entry of Object.keys(snapshot)) expect(now[entry], entry).toEqual(snapshot[entry]);
  });

  it('must-fail twin: the reader tells types from values, follows `export *`, sees a rename', () => {
    const dir = mkdtempSync(join(tmpdir(), 'priv-stark-surface-'));
    try {
      writeFileSync(
        join(dir, 'a.ts'),
        'export interface A {}\nexport type B = 1;\nexport class C {}\nexport const d = 1, e = 2;\nfunction f() {}\nexport { f as g };\n',
      );
      writeFileSync(
        join(dir, 'index.ts'),
        "export * from './a.js';\nexport { type H, i } from './h.js';\nexport type { J } from './h.js';\n",
      );
      expect([...exportsOf(join(dir, 'index.ts'))].sort()).toEqual([
        'type A',
        'type B',
        'type H',
        'type J',
        'value C',
        'value d',
        'value e',
        'value g',
        'value i',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The real entries are read, not empty: `.` is `export * from './core/index.js'`.
    const now = surface();
    expect(now['.']).toContain('value loadCore');
    expect(now['./client']).toContain('type WalletOptions');
  });
});
