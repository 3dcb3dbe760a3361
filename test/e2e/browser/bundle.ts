/**
 * Bundles a module for browsers with esbuild the way the docs tell users to (ESM, code splitting,
 * `node:*` external) and enforces that what a page loads up front needs nothing from Node: starting
 * from the entry chunk and following static imports, no module may import a Node built-in, and no
 * project module may use a Node global (`Buffer`, `process`, `require`, …). Chunks reached only by
 * dynamic import (a wallet file, the core's worker threads for WebAssembly in Node) may: a page never
 * loads them, and a test page that did would see the request fail.
 */

import { builtinModules } from 'node:module';
import { basename, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build, type Metafile, type Plugin } from 'esbuild';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OUT = `${ROOT}.browser-bundle`; // never written (write: false); names the outputs
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const NODE_GLOBALS = new Set([
  'Buffer',
  'process',
  'require',
  '__dirname',
  '__filename',
  'global',
  'setImmediate',
  'module',
]);

/** Node's built-ins stay external (as `--external:node:*` does for users). */
const nodeExternal: Plugin = {
  name: 'node-external',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      NODE_BUILTINS.has(args.path) ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * Uses of Node's globals in the given modules: they are type-checked with the browser's library and
 * without Node's type definitions, so each such use is a "Cannot find name" (locals of the same
 * name resolve to themselves and are not reported).
 */
export function nodeGlobalsIn(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    types: [],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`not type-checked: ${file}`);
    for (const diagnostic of program.getSemanticDiagnostics(source)) {
      const name = /Cannot find name '(\w+)'/.exec(
        ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
      )?.[1];
      if (name === undefined || !NODE_GLOBALS.has(name)) continue;
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      found.push(`${file.replace(ROOT, '')}:${line + 1} ${name}`);
    }
  }
  return found;
}

/** A browser bundle: its files by path (entry and chunks) and what a page loads up front. */
export interface BrowserBundle {
  /** Path of the entry chunk among `files`, e.g. `wallet-entry.js`. */
  readonly entry: string;
  readonly files: Readonly<Record<string, string>>;
  /** This project's modules in the chunks a page loads up front. */
  readonly projectModules: string[];
}

/** Outputs reachable from `from` through static imports. */
function staticallyReached(outputs: Metafile['outputs'], from: string): string[] {
  const seen = new Set<string>([from]);
  for (const output of seen) {
    for (const imported of outputs[output]!.imports) {
      if (imported.kind === 'import-statement' && !imported.external) seen.add(imported.path);
    }
  }
  return [...seen];
}

/**
 * The browser bundle of `entry`. `alias` maps imports, e.g. the package's own name to its sources.
 * @throws when a module loaded up front imports a Node built-in or uses a Node global
 */
export async function bundleForBrowser(
  entry: string,
  options: { alias?: Record<string, string> } = {},
): Promise<BrowserBundle> {
  const result = await build({
    entryPoints: [entry],
    ...(options.alias ? { alias: options.alias } : {}),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    outdir: OUT,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [nodeExternal],
  });
  const { inputs, outputs } = result.metafile;
  const entryOutput = Object.keys(outputs).find(
    (path) => outputs[path]!.entryPoint !== undefined && path.endsWith('.js'),
  )!;
  const modules = staticallyReached(outputs, entryOutput).flatMap((output) =>
    Object.keys(outputs[output]!.inputs),
  );
  const nodeImports = modules.flatMap((module) =>
    (inputs[module]?.imports ?? [])
      .filter((i) => i.kind === 'import-statement' && NODE_BUILTINS.has(i.path))
      .map((i) => `Node built-in "${i.path}" imported by ${module}`),
  );
  if (nodeImports.length > 0)
    throw new Error(`modules a browser loads up front import Node:\n${nodeImports.join('\n')}`);
  const projectModules = modules.filter((path) => path.startsWith('src/'));
  const globals = nodeGlobalsIn(projectModules.map((path) => `${ROOT}${path}`));
  if (globals.length > 0)
    throw new Error(`Node globals in modules a browser loads:\n${globals.join('\n')}`);
  const files = Object.fromEntries(
    result.outputFiles
      .filter((f) => f.path.endsWith('.js'))
      .map((f) => [relative(OUT, f.path), f.text]),
  );
  return { entry: basename(entryOutput), files, projectModules };
}
