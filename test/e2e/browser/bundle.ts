/**
 * Bundles a module for browsers with esbuild, the way a page would load the client, and enforces
 * that what a page loads up front needs nothing from Node: a static import of a Node built-in fails
 * the build, and so does a Node global (`Buffer`, `process`, `require`, …) in any of this project's
 * modules in the bundle. Dynamic imports are left out: they are the client's Node-only paths (a
 * wallet file, the core's worker pool), loaded on demand and never reached in a browser.
 */

import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { build, type Plugin } from 'esbuild';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const NODE_GLOBALS = new Set(['Buffer', 'process', 'require', '__dirname', '__filename', 'global', 'setImmediate', 'module']);

const browserOnly: Plugin = {
  name: 'browser-only',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'dynamic-import') return { path: args.path, external: true };
      if (NODE_BUILTINS.has(args.path)) {
        return { errors: [{ text: `Node built-in "${args.path}" imported by ${args.importer.replace(ROOT, '')}` }] };
      }
      return undefined;
    });
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
      const name = /Cannot find name '(\w+)'/.exec(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))?.[1];
      if (name === undefined || !NODE_GLOBALS.has(name)) continue;
      const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      found.push(`${file.replace(ROOT, '')}:${line + 1} ${name}`);
    }
  }
  return found;
}

/**
 * The browser bundle of `entry` (ESM, one file). `alias` maps imports, e.g. the package's own name
 * to its sources.
 * @throws when a Node built-in is imported statically or a project module uses a Node global
 */
export async function bundleForBrowser(entry: string, options: { alias?: Record<string, string> } = {}): Promise<{ js: string; projectModules: string[] }> {
  const result = await build({
    entryPoints: [entry],
    ...(options.alias ? { alias: options.alias } : {}),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [browserOnly],
  });
  const projectModules = Object.keys(result.metafile.inputs).filter((path) => path.startsWith('src/'));
  const globals = nodeGlobalsIn(projectModules.map((path) => `${ROOT}${path}`));
  if (globals.length > 0) throw new Error(`Node globals in modules a browser loads:\n${globals.join('\n')}`);
  return { js: result.outputFiles[0]!.text, projectModules };
}
