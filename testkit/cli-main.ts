// The built command (`dist/cli/main.js`), as a user runs it: `npm test` builds dist/ first (after
// editing src/ alone, `node scripts/build.mjs ts`). Starting it costs half the CPU of running the
// sources under tsx (measured: 2.0 against 4.1 CPU-seconds for `--help`), and the command-line
// suites start it dozens of times.

import { fileURLToPath } from 'node:url';

/** Path of the built command's entry point. */
export const CLI_MAIN = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
