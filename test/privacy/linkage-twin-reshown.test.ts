// The must-fail twin of the re-shown nullifier (test/privacy/twin.ts).

import { twinTest } from './twin.js';

twinTest('re-shown nullifier');
