// The must-fail twin of the timing join (test/privacy/twin.ts). A timing join races the machine's
// load — a proof's real time from the payer's sync to its write against the gaps between other
// wallets' reads — so this file runs last and alone (vitest.config.ts, the `linkage-timing`
// group), not beside the suites.

import { twinTest } from './twin.js';

twinTest('timing join');
