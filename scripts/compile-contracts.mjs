#!/usr/bin/env node
// Compiles contracts/ with the pinned npm solc (standard JSON; optimizer and evmVersion pinned
// below) and writes what is committed: under contracts/artifacts/ the standard-JSON input of each
// compilation (every source's text inside, OpenZeppelin's included: what a block explorer verifies
// against) and one artifact per contract (ABI, creation and deployed bytecode, compiler version,
// settings); and src/chain/contract-artifacts.ts, the ABIs `as const` and the creation bytecode
// for viem. Nothing is compiled at run time: the service and the demo load the committed files.
//
//   node scripts/compile-contracts.mjs           → writes the files
//   node scripts/compile-contracts.mjs --check   → exits 1 if any committed file differs
//
// test/chain/reproducible.test.ts recompiles from source and compares byte for byte.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OPENZEPPELIN = '@openzeppelin/contracts/';

/** The compiler's settings, pinned: Base runs Cancun's EVM (anvil is started with the same fork). */
export const SETTINGS = {
  optimizer: { enabled: true, runs: 1000 },
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'ipfs' },
  outputSelection: {
    '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
  },
};

/**
 * The compilations: the escrow alone (what is deployed on a real chain and verified), and the
 * test-only contracts. `exported`: the contracts whose ABI and bytecode go to the TypeScript module.
 */
export const UNITS = [
  {
    name: 'escrow',
    sources: ['contracts/src/PrivStarkEscrow.sol'],
    contracts: ['PrivStarkEscrow'],
    exported: ['PrivStarkEscrow'],
  },
  {
    name: 'test-contracts',
    sources: [
      'contracts/test/TestUSDC.sol',
      'contracts/test/HostileToken.sol',
      'contracts/test/TestSmartAccount.sol',
    ],
    contracts: ['TestUSDC', 'HostileToken', 'TestSmartAccount'],
    // The test token is deployed by `chain deploy` and the demo on a local chain (31337) only.
    exported: ['TestUSDC'],
  },
];

/** Where the TypeScript module goes: the compiler's version and each exported contract's names. */
export const GENERATED_MODULE = 'src/chain/contract-artifacts.ts';

/** Where an exported contract's own module goes (its ABI and bytecode, one concern per file). */
export const contractModule = (contractName) =>
  `src/chain/artifacts/${contractName.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}.ts`;

/** The files a compilation writes, by path relative to the repository root, and their text. */
export function compileContracts(root = ROOT) {
  const require = createRequire(join(root, 'package.json'));
  const solc = require('solc');
  const zeppelinDir = dirname(require.resolve(`${OPENZEPPELIN}package.json`));
  const zeppelinVersion = JSON.parse(
    readFileSync(join(zeppelinDir, 'package.json'), 'utf8'),
  ).version;
  const read = (unit) =>
    unit.startsWith(OPENZEPPELIN)
      ? readFileSync(join(zeppelinDir, unit.slice(OPENZEPPELIN.length)), 'utf8')
      : readFileSync(join(root, unit), 'utf8');

  const files = new Map();
  const exported = [];
  for (const unit of UNITS) {
    const { input, output } = compileUnit(solc, unit, read);
    files.set(`contracts/artifacts/${unit.name}.input.json`, json(input));
    for (const [sourceName, contracts] of Object.entries(output.contracts)) {
      for (const [contractName, compiled] of Object.entries(contracts)) {
        if (!unit.contracts.includes(contractName)) continue;
        const artifact = {
          contractName,
          sourceName,
          compiler: { name: 'solc', version: solc.version() },
          openzeppelin: zeppelinVersion,
          input: `${unit.name}.input.json`,
          settings: input.settings,
          abi: compiled.abi,
          bytecode: `0x${compiled.evm.bytecode.object}`,
          deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
        };
        files.set(`contracts/artifacts/${contractName}.json`, json(artifact));
        // The production contracts' ABIs alone, for auditors and other clients (contracts/abi/).
        if (sourceName.startsWith('contracts/src/'))
          files.set(`contracts/abi/${contractName}.json`, json(compiled.abi));
        if (unit.exported.includes(contractName)) exported.push(artifact);
      }
    }
    for (const name of unit.contracts)
      if (!files.has(`contracts/artifacts/${name}.json`))
        throw new Error(`solc produced no contract ${name} in ${unit.name}`);
  }
  for (const artifact of exported)
    files.set(contractModule(artifact.contractName), contractTypescript(artifact));
  files.set(GENERATED_MODULE, typescriptModule(exported, solc.version(), zeppelinVersion));
  return files;
}

/**
 * Compiles one unit. Its input holds every source it needs — the unit's files and all they
 * import, relative imports and `@openzeppelin/contracts/…` (read from node_modules), sorted by
 * name — so the committed input compiles on its own, with no import callback, to the same bytes.
 */
function compileUnit(solc, unit, read) {
  const sources = new Map();
  const pending = [...unit.sources];
  while (pending.length > 0) {
    const name = pending.pop();
    if (sources.has(name)) continue;
    const text = read(name);
    sources.set(name, text);
    for (const match of text.matchAll(IMPORT)) pending.push(resolveImport(name, match[1]));
  }
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(
      [...sources.keys()].sort().map((name) => [name, { content: sources.get(name) }]),
    ),
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  failOnDiagnostics(unit.name, output);
  return { input, output };
}

/** `import "x";`, `import {A} from "x";`, `import * as A from "x";` (solc's forms). */
const IMPORT = /^\s*import\s+(?:[^;"']*?\s+from\s+)?["']([^"']+)["']\s*;/gm;

/** A source unit name from an import: relative to the importer's directory, or as written. */
function resolveImport(importer, path) {
  if (!path.startsWith('.')) return path;
  const parts = importer.split('/').slice(0, -1);
  for (const part of path.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.') parts.push(part);
  }
  return parts.join('/');
}

/**
 * Errors fail the build, and so do warnings about the project's own sources: they compile cleanly
 * or not at all. (OpenZeppelin's transient-storage reentrancy guard draws solc's generic warning
 * about `tstore`, which its authors document as safe for a guard.)
 */
function failOnDiagnostics(name, output) {
  const diagnostics = (output.errors ?? []).filter(
    (e) =>
      e.severity === 'error' ||
      (e.severity === 'warning' && !e.sourceLocation?.file?.startsWith(OPENZEPPELIN)),
  );
  if (diagnostics.length > 0)
    throw new Error(
      `solc (${name}):\n${diagnostics.map((e) => e.formattedMessage ?? e.message).join('\n')}`,
    );
}

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

const camel = (name) => name.charAt(0).toLowerCase() + name.slice(1).replace(/USDC/, 'Usdc');

/** An ABI `as const`, one entry a line: the ABI is data, read by viem's types, not by people. */
const abiLiteral = (abi) => `[\n${abi.map((entry) => `  ${JSON.stringify(entry)},`).join('\n')}\n]`;

function contractTypescript(artifact) {
  const name = camel(artifact.contractName);
  return [
    '/**',
    ` * @module ${artifact.contractName} (${artifact.sourceName}): its ABI \`as const\` and creation bytecode.`,
    ' * GENERATED by scripts/compile-contracts.mjs: do not edit.',
    ' */',
    '',
    `/** ${artifact.contractName}'s ABI. */`,
    `export const ${name}Abi = ${abiLiteral(artifact.abi)} as const;`,
    '',
    `/** ${artifact.contractName}'s creation bytecode (constructor arguments are appended by the deployer). */`,
    `export const ${name}Bytecode: \`0x\${string}\` =\n  ${JSON.stringify(artifact.bytecode)};`,
    '',
  ].join('\n');
}

function typescriptModule(artifacts, solcVersion, zeppelinVersion) {
  const lines = [
    '/**',
    ' * @module The compiled contracts the chain code deploys and calls: their ABIs `as const` (for',
    " * viem's types) and creation bytecode, one module per contract under artifacts/. GENERATED by",
    ` * scripts/compile-contracts.mjs from contracts/ (solc ${solcVersion}, OpenZeppelin Contracts`,
    ` * ${zeppelinVersion}, optimizer ${SETTINGS.optimizer.runs} runs, evmVersion ${SETTINGS.evmVersion}): do not edit. The`,
    ' * standard-JSON inputs a block explorer verifies against are in contracts/artifacts/. TestUSDC is a',
    ' * test token for local chains (31337) only.',
    ' */',
    '',
    '/** The compiler that produced the bytecode. */',
    `export const SOLC_VERSION = ${JSON.stringify(solcVersion)};`,
  ];
  for (const artifact of artifacts) {
    const name = camel(artifact.contractName);
    const module = contractModule(artifact.contractName)
      .replace('src/chain/', './')
      .replace(/\.ts$/, '.js');
    lines.push(`export { ${name}Abi, ${name}Bytecode } from '${module}';`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the files; returns the paths that changed. */
export function writeContracts(root = ROOT) {
  const changed = [];
  for (const [path, text] of compileContracts(root)) {
    const full = join(root, path);
    if (existsSync(full) && readFileSync(full, 'utf8') === text) continue;
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
    changed.push(path);
  }
  return changed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const stale = [...compileContracts()].filter(
      ([path, text]) =>
        !existsSync(join(ROOT, path)) || readFileSync(join(ROOT, path), 'utf8') !== text,
    );
    for (const [path] of stale) process.stderr.write(`out of date: ${path}\n`);
    process.exitCode = stale.length > 0 ? 1 : 0;
  } else {
    for (const path of writeContracts()) process.stderr.write(`wrote ${path}\n`);
  }
}
