// The one worker-thread helper: least-busy dispatch, a job's failure reported with its message,
// a dead worker's jobs failed with WorkerDiedError and never sent again, a fresh worker started
// for the next job, shutdown with a farewell job, jobs posted only to a worker that listens (the
// Deno hang), and a job's deadline. Must-fail twins: the died, failed and timed-out cases.

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import {
  WorkerDiedError,
  WorkerJobError,
  WorkerThreads,
  WorkerTimeoutError,
  workerScript,
} from '../../src/core/worker-threads.js';

type Job = { kind: 'echo' | 'fail' | 'die' | 'slow'; value?: number };
type Answer = { value?: number; thread: number; received: number };

const script = workerScript(
  new URL('./fixtures/', import.meta.url).href.replace(/\/$/, '/x.ts'),
  'counting-worker',
);
const fixture = (name: string) =>
  workerScript(new URL('./fixtures/', import.meta.url).href.replace(/\/$/, '/x.ts'), name);
const opened: WorkerThreads<never, unknown>[] = [];
function threads(size: number): WorkerThreads<Job, Answer> {
  const t = new WorkerThreads<Job, Answer>({ script, size });
  opened.push(t as WorkerThreads<never, unknown>);
  return t;
}
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

describe('worker threads', () => {
  it('names the script beside its caller: .ts under the test runner, .js in the package', () => {
    expect(workerScript('file:///a/b/c.ts', 'w').href).toBe('file:///a/b/w.ts');
    expect(workerScript('file:///a/b/c.js', 'w').href).toBe('file:///a/b/w.js');
  });

  it('answers jobs and spreads concurrent ones over the least busy workers', async () => {
    const t = threads(2);
    await t.start();
    const answers = await Promise.all([1, 2, 3, 4].map((value) => t.run({ kind: 'slow', value })));
    expect(answers.map((a) => a.value)).toEqual([1, 2, 3, 4]);
    expect(new Set(answers.map((a) => a.thread)).size).toBe(2);
    expect(t.busy).toBe(0);
  });

  it('reports a job the worker refused with its message, and keeps the worker', async () => {
    const t = threads(1);
    const first = await t.run({ kind: 'echo', value: 1 });
    const failure = await t.run({ kind: 'fail' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkerJobError);
    expect((failure as Error).message).toBe('refused: the job asked for it');
    expect(((failure as Error).cause as Error).message).toBe('inner');
    const after = await t.run({ kind: 'echo', value: 2 });
    expect(after.thread).toBe(first.thread);
    expect(after.received).toBe(3);
  });

  it('fails every job of a worker that died, sends none of them again, and starts a fresh worker for the next', async () => {
    const t = threads(1);
    const before = await t.run({ kind: 'echo', value: 1 });
    const pending = [
      t.run({ kind: 'slow', value: 2 }),
      t.run({ kind: 'die' }),
      t.run({ kind: 'slow', value: 3 }),
    ];
    const outcomes = await Promise.allSettled(pending);
    // The slow job before the death was answered; the death and what queued behind it fail.
    expect(outcomes[0]).toMatchObject({ status: 'fulfilled', value: { value: 2 } });
    for (const outcome of outcomes.slice(1)) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(WorkerDiedError);
    }
    const fresh = await t.run({ kind: 'echo', value: 4 });
    expect(fresh.thread).not.toBe(before.thread);
    // The fresh worker received only the new job: nothing of the dead one's was sent again.
    expect(fresh.received).toBe(1);
  });

  it('refuses work after close, and closes with a farewell job answered first', async () => {
    const t = threads(2);
    await t.start();
    await t.close({ farewell: { kind: 'echo', value: 0 }, graceMs: 2000 });
    await expect(t.run({ kind: 'echo', value: 1 })).rejects.toBeInstanceOf(WorkerDiedError);
  });

  it('posts a job only once its worker listens, so a runtime that drops earlier messages loses none', async () => {
    const t = new WorkerThreads<{ value: number }, { value: number; lost: number }>({
      script: fixture('late-listening-worker'),
    });
    opened.push(t as WorkerThreads<never, unknown>);
    // Sent while the worker is still loading: kept back until it has said it listens.
    const answers = await Promise.all([t.run({ value: 1 }), t.run({ value: 2 })]);
    expect(answers).toEqual([
      { value: 1, lost: 0 },
      { value: 2, lost: 0 },
    ]);
  });

  it('fails a job past its deadline with WorkerTimeoutError, and not one answered in time', async () => {
    const t = new WorkerThreads<{ value: number }, unknown>({
      script: fixture('never-ready-worker'),
    });
    opened.push(t as WorkerThreads<never, unknown>);
    const outcome = await t.run({ value: 1 }, { timeoutMs: 200 }).catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(WorkerTimeoutError);
    expect((outcome as Error).message).toBe('no answer within 200 ms');
    expect(t.busy).toBe(0);
    // The twin: a worker that answers, with the same kind of deadline (generous), is not failed.
    const answered = threads(1);
    expect(await answered.run({ kind: 'echo', value: 7 }, { timeoutMs: 30_000 })).toMatchObject({
      value: 7,
    });
  });

  it('stops a worker that never started once its job timed out, so the process can exit', () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./fixtures/deadline-child.ts', import.meta.url))],
      { encoding: 'utf8', timeout: 30_000 },
    );
    // Killed by the guard (signal) had it hung; exited by itself otherwise.
    expect(child.signal).toBeNull();
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ timedOut: true, busy: 0 });
  });
});
