// The must-fail twin of the address join (test/privacy/twin.ts), and on the same run the upload
// timing's: the observer on the wallets' links reads the public log with millisecond times.

import { twinTest, uploadTimingTwinTest } from './twin.js';

twinTest('address join', uploadTimingTwinTest);
