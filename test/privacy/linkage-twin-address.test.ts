// The must-fail twin of the address join (test/privacy/twin.ts).

import { twinTest } from './twin.js';

twinTest('address join');
