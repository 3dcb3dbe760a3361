// The must-fail twin of the timing join (test/privacy/twin.ts).

import { twinTest } from './twin.js';

twinTest('timing join');
