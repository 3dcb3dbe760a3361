// The must-fail twin of the amount join (test/privacy/twin.ts): deposits of odd amounts, each
// wallet exiting what is left, joined on deposit–exit pairs.

import { twinTest } from './twin.js';

twinTest('amount join');
