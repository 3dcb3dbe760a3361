/**
 * @module What the commands write through, and a failure that carries its exit code: a command
 * turns every error into one line on standard error with the code its usage promises (1 refused,
 * 2 bad flags or could not complete), never a stack trace.
 */

/** Where a command writes. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

/** Standard output and standard error, a line each. */
export const stdio: CliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
};

/** A command's failure: its one-line message and its exit code. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
  constructor(
    readonly exitCode: 1 | 2,
    message: string,
  ) {
    super(message);
  }
}
