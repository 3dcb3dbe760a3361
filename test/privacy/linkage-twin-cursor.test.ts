// The must-fail twin of the cursor chain (test/privacy/twin.ts).

import { twinTest } from './twin.js';

twinTest('cursor chain');
