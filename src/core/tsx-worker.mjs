// The entry of a worker thread whose script is TypeScript (under the test runner or tsx; see
// spawnWorker in worker-threads.ts): registers tsx, a development dependency, in this thread, then
// imports the script named by the first argument. A file rather than `eval` code because Node
// runs the process's preloads (`--import`, e.g. the Node 26 test run's module redirect) in file
// workers only.
import { argv } from 'node:process';

const tsx = await import('tsx/esm/api');
tsx.register();
await import(argv[2]);
