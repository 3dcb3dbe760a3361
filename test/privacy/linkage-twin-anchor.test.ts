// The must-fail twin of the anchor join (test/privacy/twin.ts).

import { twinTest } from './twin.js';

twinTest('anchor join');
