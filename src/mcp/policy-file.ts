/**
 * @module The operator's policy file: read on every use when it changed on disk (so an operator's
 * edit applies without a restart), refused when others may write it (they could raise a limit),
 * and rewritten atomically by a tightening — which takes effect in memory first, so no payment
 * passes under the old policy while the file is being written.
 */

import { open, readFile, rename, stat } from 'node:fs/promises';

import { PolicyFileError, ToolError } from './errors.js';
import {
  parsePolicy,
  type Policy,
  policyToJson,
  type PolicyTightening,
  tightenPolicy,
} from './policy.js';

/** The largest policy file read. */
const MAX_POLICY_BYTES = 256 * 1024;

/** Where the policy in force comes from. */
export interface PolicySource {
  /** The policy in force (fails closed: a broken file refuses every payment). */
  current(): Promise<Policy>;
  /** Narrows the policy and persists it. */
  tighten(change: PolicyTightening): Promise<{ policy: Policy; changed: string[] }>;
  /** Where it is kept, for the operator. */
  readonly location: string;
}

/** The policy file. */
export class PolicyFile implements PolicySource {
  private policy: Policy | null = null;
  private seen = '';
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly location: string) {}

  async current(): Promise<Policy> {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(this.location);
    } catch (error) {
      throw new PolicyFileError(
        `the policy file ${this.location} cannot be read: the operator must create it (docs/mcp.md)`,
        { cause: error },
      );
    }
    if (process.platform !== 'win32' && (info.mode & 0o022) !== 0) {
      throw new PolicyFileError(
        `the policy file ${this.location} is writable by others (mode ${(info.mode & 0o777).toString(8)}): anyone who can write it can raise the limits; chmod 644 or 600 it`,
      );
    }
    if (info.size > MAX_POLICY_BYTES)
      throw new PolicyFileError(
        `the policy file ${this.location} is larger than ${MAX_POLICY_BYTES} bytes`,
      );
    const key = `${info.mtimeMs}:${info.size}:${info.ino}`;
    if (this.policy === null || key !== this.seen) {
      let value: unknown;
      try {
        value = JSON.parse(await readFile(this.location, 'utf8'));
      } catch (error) {
        throw new PolicyFileError(`the policy file ${this.location} is not valid JSON`, {
          cause: error,
        });
      }
      this.policy = parsePolicy(value);
      this.seen = key;
    }
    return this.policy;
  }

  async tighten(change: PolicyTightening): Promise<{ policy: Policy; changed: string[] }> {
    await this.current();
    // From the latest policy in memory, so concurrent tightenings compose instead of undoing each other.
    const result = tightenPolicy(this.policy!, change);
    // In force from now on, before the file is written.
    this.policy = result.policy;
    const write = this.writing.catch(() => undefined).then(() => this.write(result.policy));
    this.writing = write;
    try {
      await write;
    } catch (error) {
      throw new ToolError(
        'policy_not_persisted',
        `the tighter policy is in force until this server stops, but writing ${this.location} failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
    return result;
  }

  private async write(policy: Policy): Promise<void> {
    const mode = (await stat(this.location)).mode & 0o644;
    const temp = `${this.location}.${process.pid}.tmp`;
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(`${JSON.stringify(policyToJson(policy), null, 2)}\n`);
      await handle.sync();
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await rename(temp, this.location);
    const info = await stat(this.location);
    this.seen = `${info.mtimeMs}:${info.size}:${info.ino}`;
  }
}
