/**
 * @module Worker threads, written once for every part that runs work off the event loop — the
 * proof verifiers, the WebAssembly core's slow calls, the SQLite store's writer: spawning (under
 * the test runner, whose sources are TypeScript, through the development loader), least-busy
 * dispatch, a dead worker's jobs failed with {@link WorkerDiedError} (never sent again) and a fresh
 * worker started when next needed, a job's optional deadline ({@link WorkerTimeoutError}), and
 * shutdown. A worker is referenced only while it has a job or is starting, so idle threads never
 * keep a process alive. Nothing here retires a live worker: a job runs to its end (the SQLite
 * writer is never stopped in the middle of a transaction).
 *
 * The two sides speak one protocol: the worker ({@link serveJobs}) posts `{ ready: true }` once it
 * listens; only then does the main thread post `{ id, job }` to it; the worker answers
 * `{ id, ok: true, result }` or `{ id, ok: false, message, cause }`. Jobs wait for `ready` because
 * not every runtime keeps a message that reaches a worker before it listens: Node queues it on the
 * worker's port until a `message` listener is attached, but Deno's `parentPort` dispatches it as
 * an event of the worker's global scope at once and, with no listener yet (a worker still in a
 * top-level `await`, loading its WebAssembly module), the job is gone and its caller waits forever.
 */

import { parentPort, type Transferable, Worker } from 'node:worker_threads';

/** A worker died (crashed, exited, or failed to start) before it answered the job. */
export class WorkerDiedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkerDiedError';
  }
}

/** A job not answered within its deadline (see {@link RunOptions.timeoutMs}); its answer, should
 * one come later, is dropped. */
export class WorkerTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkerTimeoutError';
  }
}

/** A job the worker's handler failed; `message` is the handler's own. */
export class WorkerJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WorkerJobError';
  }
}

/**
 * The URL of a worker script beside `base` (pass `import.meta.url`): `name.ts` when `base` is a
 * TypeScript source (the test runner, tsx), `name.js` in the compiled package.
 */
export function workerScript(base: string, name: string): URL {
  return new URL(`./${name}.${base.endsWith('.ts') ? 'ts' : 'js'}`, base);
}

/** Options of {@link WorkerThreads}. */
export interface WorkerThreadsOptions {
  /** The worker's script ({@link workerScript}). */
  readonly script: URL;
  /** Passed to every worker as `workerData`. */
  readonly workerData?: unknown;
  /** Workers (default 1). */
  readonly size?: number;
}

type Reply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; message?: string; cause?: string };

/** Options of {@link WorkerThreads.run}. */
export interface RunOptions {
  /** Buffers moved to the worker instead of copied. */
  readonly transfer?: readonly Transferable[] | undefined;
  /**
   * Fail the job with {@link WorkerTimeoutError} when it has no answer this many milliseconds
   * after `run` (default: no deadline). The worker is not stopped (it may be running the job), but
   * no longer referenced for it; a worker that has not even started by then is stopped.
   */
  readonly timeoutMs?: number | undefined;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker | null;
  readonly pending: Map<number, Pending>;
  /** Resolves when the current worker has posted `ready`. */
  ready: Promise<void> | null;
  /** Whether the current worker has posted `ready`. */
  listening: boolean;
}

function spawnWorker(script: URL, workerData: unknown): Worker {
  if (!script.pathname.endsWith('.ts')) return new Worker(script, { workerData });
  // Under the test runner the sources are TypeScript: the worker registers tsx (a development
  // dependency) before importing its script (`tsx-worker.mjs`).
  return new Worker(new URL('./tsx-worker.mjs', import.meta.url), {
    argv: [script.href],
    workerData,
  });
}

/**
 * A fixed number of worker threads running one script.
 * @example
 * const threads = new WorkerThreads<Job, Answer>({ script: workerScript(import.meta.url, 'my-worker'), size: 2 });
 * const answer = await threads.run({ kind: 'work' });
 * await threads.close();
 */
export class WorkerThreads<Job, Result> {
  readonly #options: WorkerThreadsOptions;
  readonly #slots: Slot[];
  #nextId = 0;
  #closed = false;

  constructor(options: WorkerThreadsOptions) {
    this.#options = options;
    this.#slots = Array.from({ length: Math.max(1, options.size ?? 1) }, () => ({
      worker: null,
      pending: new Map(),
      ready: null,
      listening: false,
    }));
  }

  /** Workers. */
  get size(): number {
    return this.#slots.length;
  }

  /** Jobs sent and not answered yet. */
  get busy(): number {
    return this.#slots.reduce((n, slot) => n + slot.pending.size, 0);
  }

  /**
   * Starts every worker and resolves once each can take jobs.
   * @throws WorkerDiedError when one fails to start
   */
  async start(): Promise<void> {
    await Promise.all(this.#slots.map((slot) => this.#live(slot).ready));
  }

  #live(slot: Slot): { worker: Worker; ready: Promise<void> } {
    if (slot.worker && slot.ready) return { worker: slot.worker, ready: slot.ready };
    const worker = spawnWorker(this.#options.script, this.#options.workerData);
    slot.worker = worker;
    slot.listening = false;
    // Referenced while starting: an idle process must not exit before its workers are up.
    worker.ref();
    let started: () => void = () => undefined;
    let failed: (error: Error) => void = () => undefined;
    slot.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    slot.ready.catch(() => undefined);
    worker.on('message', (message: Reply | { ready?: boolean }) => {
      if ('ready' in message && message.ready) {
        slot.listening = true;
        if (slot.pending.size === 0) worker.unref();
        started();
        return;
      }
      const reply = message as Reply;
      const pending = slot.pending.get(reply.id);
      if (!pending) return;
      slot.pending.delete(reply.id);
      if (slot.pending.size === 0) worker.unref();
      if (reply.ok) pending.resolve(reply.result);
      else
        pending.reject(
          new WorkerJobError(
            reply.message ?? 'the job failed',
            reply.cause ? { cause: new Error(reply.cause) } : undefined,
          ),
        );
    });
    const died = (error: Error) => {
      if (slot.worker !== worker) return;
      slot.worker = null;
      slot.ready = null;
      const death = new WorkerDiedError(`the worker thread stopped: ${error.message}`, {
        cause: error,
      });
      failed(death);
      for (const pending of slot.pending.values()) pending.reject(death);
      slot.pending.clear();
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`exited with code ${code}`)));
    return { worker, ready: slot.ready };
  }

  /**
   * Runs a job on the least busy worker (starting one if its slot has none). The job is posted
   * once that worker listens.
   * @throws WorkerJobError when the worker's handler failed; WorkerDiedError when the worker died
   *   before it answered (the job is not sent again), or after {@link close}; WorkerTimeoutError
   *   when `timeoutMs` passed without an answer
   */
  run(job: Job, options: RunOptions = {}): Promise<Result> {
    if (this.#closed) return Promise.reject(new WorkerDiedError('the worker threads are closed'));
    const slot = this.#slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const { worker, ready } = this.#live(slot);
    const id = this.#nextId++;
    return new Promise<Result>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      slot.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as Result);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      worker.ref();
      ready.then(
        () => {
          if (slot.worker === worker && slot.pending.has(id))
            worker.postMessage({ id, job }, options.transfer as Transferable[] | undefined);
        },
        // The worker died before it listened: `died` has already failed this job.
        () => undefined,
      );
      if (options.timeoutMs === undefined) return;
      timer = setTimeout(() => {
        if (!slot.pending.delete(id)) return;
        if (slot.worker === worker) {
          // Never started: stopped (its `exit` clears the slot for a fresh worker). Started: kept
          // for its other jobs, and referenced only while it has some.
          if (!slot.listening) void worker.terminate();
          else if (slot.pending.size === 0) worker.unref();
        }
        reject(new WorkerTimeoutError(`no answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
    });
  }

  /**
   * Stops every worker. With `farewell`, each live worker first gets it as a last job and up to
   * `graceMs` (default 5000) to answer it — for workers that hold resources (the SQLite writer
   * closes its connection); then it is terminated.
   */
  async close(options: { farewell?: Job; graceMs?: number } = {}): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(
      this.#slots.map(async (slot) => {
        const worker = slot.worker;
        if (!worker) return;
        if (options.farewell !== undefined) {
          const id = this.#nextId++;
          // Answered, or failed by the worker's death: either way it holds nothing any more.
          const answered = new Promise<void>((resolve) =>
            slot.pending.set(id, { resolve: () => resolve(), reject: () => resolve() }),
          );
          worker.ref();
          // Like every job, posted once the worker listens (within the grace below).
          const farewell = options.farewell;
          slot.ready?.then(
            () => worker.postMessage({ id, job: farewell }),
            () => undefined,
          );
          let timer: NodeJS.Timeout | undefined;
          const grace = new Promise<void>((resolve) => {
            timer = setTimeout(resolve, options.graceMs ?? 5000);
          });
          await Promise.race([answered, grace]);
          clearTimeout(timer);
        }
        await worker.terminate();
      }),
    );
  }
}

/**
 * The worker's side: answers each job with `handler`'s result (or its failure), one job at a time
 * in the order they arrive (an asynchronous handler never overlaps itself), and tells the main
 * thread it is ready. A handler's result wrapped by {@link transferred} moves its buffers instead
 * of copying them.
 * @throws Error when not called in a worker thread
 */
export function serveJobs<Job>(handler: (job: Job) => unknown): void {
  const port = parentPort;
  if (!port) throw new Error('serveJobs must run in a worker thread');
  const answer = async (id: number, job: Job) => {
    try {
      const result = await handler(job);
      if (result instanceof Transferred)
        port.postMessage({ id, ok: true, result: result.result }, result.transfer);
      else port.postMessage({ id, ok: true, result });
    } catch (error) {
      const cause =
        error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
      port.postMessage({
        id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        cause,
      });
    }
  };
  let queue: Promise<void> = Promise.resolve();
  port.on('message', ({ id, job }: { id: number; job: Job }) => {
    queue = queue.then(() => answer(id, job));
  });
  port.postMessage({ ready: true });
}

class Transferred {
  constructor(
    readonly result: unknown,
    readonly transfer: Transferable[],
  ) {}
}

/** A handler's result whose buffers are moved to the main thread. */
export function transferred(result: unknown, transfer: Transferable[]): unknown {
  return new Transferred(result, transfer);
}
