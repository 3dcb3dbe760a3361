// The must-fail twin of the refill timing (test/privacy/twin.ts).

import { twinTest } from './twin.js';

twinTest('refill timing');
