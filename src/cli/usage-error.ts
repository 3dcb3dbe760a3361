/**
 * @module A command line or environment that cannot be used (the command exits 2).
 */

/** A command line or environment that cannot be used. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
