// Types of scripts/compile-contracts.mjs for the TypeScript that imports it (the tests).

/** One compilation: its name, entry sources, contracts kept, and those exported to TypeScript. */
export interface CompilationUnit {
  readonly name: string;
  readonly sources: readonly string[];
  readonly contracts: readonly string[];
  readonly exported: readonly string[];
}

/** The compiler's pinned standard-JSON settings. */
export const SETTINGS: {
  readonly optimizer: { readonly enabled: boolean; readonly runs: number };
  readonly evmVersion: string;
  readonly metadata: { readonly bytecodeHash: string };
  readonly outputSelection: Record<string, Record<string, readonly string[]>>;
};

export const UNITS: readonly CompilationUnit[];

/** The generated TypeScript module's path. */
export const GENERATED_MODULE: string;
/** Where an exported contract's own module goes (src/chain/artifacts/…). */
export function contractModule(contractName: string): string;

/** The files a compilation writes (path relative to the repository root → text). */
export function compileContracts(root?: string): Map<string, string>;

/** Writes them; returns the paths that changed. */
export function writeContracts(root?: string): string[];
