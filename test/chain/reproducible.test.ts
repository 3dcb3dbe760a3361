// The committed contract artifacts are what the sources compile to: the pinned solc recompiles
// contracts/ (with OpenZeppelin from node_modules) and every committed file — the standard-JSON
// inputs a block explorer verifies against, the artifacts, the TypeScript module — matches byte
// for byte. Must-fail twin: one changed byte of source changes the bytecode.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import {
  compileContracts,
  contractModule,
  GENERATED_MODULE,
  SETTINGS,
  UNITS,
} from '../../scripts/compile-contracts.mjs';
import { privStarkEscrowBytecode, SOLC_VERSION } from '../../src/chain/contract-artifacts.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(new URL(path, `file://${ROOT}`), 'utf8');

describe('the committed contract artifacts', () => {
  it('are reproduced byte for byte from contracts/ by the pinned solc', () => {
    const files = compileContracts();
    expect([...files.keys()].sort()).toEqual(
      [
        GENERATED_MODULE,
        ...UNITS.flatMap((u) => u.exported.map(contractModule)),
        ...UNITS.flatMap((u) => [
          `contracts/artifacts/${u.name}.input.json`,
          ...u.contracts.map((c) => `contracts/artifacts/${c}.json`),
        ]),
        // The production contract's ABI alone, for auditors and other clients.
        'contracts/abi/PrivStarkEscrow.json',
      ].sort(),
    );
    for (const [path, text] of files) expect(read(path), path).toBe(text);
    // The settings a verifier needs are the ones pinned, and the compiler is the pinned package.
    const escrow = JSON.parse(read('contracts/artifacts/PrivStarkEscrow.json'));
    expect(escrow.settings).toEqual(SETTINGS);
    expect(escrow.settings.evmVersion).toBe('cancun');
    const pinned = JSON.parse(read('package.json')).dependencies.solc as string;
    expect(SOLC_VERSION.startsWith(`${pinned}+commit.`)).toBe(true);
    expect(escrow.bytecode).toBe(privStarkEscrowBytecode);
  }, 120_000);

  it("the build's committed stamp is the sources' fingerprint: a clone compiles nothing", () => {
    // scripts/build.mjs's fingerprint of the contracts step: its extra, then path and bytes of
    // each input in order.
    const pins = JSON.parse(read('package.json')).dependencies;
    const sol = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? sol(join(dir, entry.name))
          : entry.name.endsWith('.sol')
            ? [join(dir, entry.name)]
            : [],
      );
    const hash = createHash('sha256').update(
      `solc ${pins.solc}, @openzeppelin/contracts ${pins['@openzeppelin/contracts']}`,
    );
    for (const path of ['scripts/compile-contracts.mjs', ...sol('contracts')].sort())
      hash.update(path).update(readFileSync(join(ROOT, path)));
    expect(read('contracts/artifacts/sources.sha256')).toBe(hash.digest('hex'));
  });

  it('must-fail twin: a changed byte of the escrow source changes its bytecode', () => {
    const solc = createRequire(`${ROOT}package.json`)('solc');
    const input = JSON.parse(read('contracts/artifacts/escrow.input.json'));
    const source = 'contracts/src/PrivStarkEscrow.sol';
    const compiled = (standardJson: unknown) =>
      `0x${JSON.parse(solc.compile(JSON.stringify(standardJson))).contracts[source].PrivStarkEscrow.evm.bytecode.object}`;
    // (The committed input alone, with no import callback, gave the committed bytecode above:
    // compileContracts compiles exactly the input it writes.) A one-character change of a
    // comment gives another.
    input.sources[source].content = input.sources[source].content.replace(
      'The escrow that backs',
      'The escrow that  backs',
    );
    expect(compiled(input)).not.toBe(privStarkEscrowBytecode);
  }, 120_000);
});
