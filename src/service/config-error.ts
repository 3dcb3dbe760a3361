/**
 * @module The configuration errors the service refuses to start on (the command exits 2).
 */

/** A configuration the service refuses (the message says why; it names no secret). */
export class ServiceConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServiceConfigError';
  }
}
