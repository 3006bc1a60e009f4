/**
 * Worker threads whose module sits beside the caller's: built, it is an entry of its own in
 * dist/, beside the chunk that starts it (scripts/build-options.mjs); from source, a worker
 * does not get the TypeScript loader of its parent (Node 20), so it registers tsx itself
 * before it imports the worker's module.
 */
import { type Transferable, Worker } from 'node:worker_threads';

/** `callerUrl`: the caller's import.meta.url; `name`: the worker module's name, without extension. */
export function startWorker(callerUrl: string, name: string): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.mjs`, callerUrl));
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const worker = JSON.stringify(new URL(`./${name}.ts`, callerUrl).href);
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${worker}); })`, {
    eval: true,
  });
}

interface Waiting<In> {
  resolve(reply: In): void;
  reject(error: Error): void;
}

/**
 * Calls to a worker thread, each answered by a message naming its id. The thread starts
 * with the first message sent to it; once it fails or stops (or is closed), every call
 * waiting is refused with that error, and so is every later one.
 */
export class WorkerCalls<Out, In extends { readonly id: number }> {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting<In>>();
  private failed: Error | undefined;
  private closing: Promise<void> | undefined;

  /**
   * `what`: the worker in a sentence ("the file encoding worker"); `other`: takes a message
   * from the worker that answers no call, and says so (false: it is a reply).
   */
  constructor(
    private readonly callerUrl: string,
    private readonly name: string,
    private readonly what: string,
    private readonly other: (message: In) => boolean = () => false,
  ) {}

  get failure(): Error | undefined {
    return this.failed;
  }

  /** Sends what `request` makes of a new id; resolves with the reply naming it. */
  call(request: (id: number) => Out, transfer: readonly Transferable[] = []): Promise<In> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.post(request(id), transfer);
    });
  }

  /** A message no reply answers (nothing is sent once the worker failed or was closed). */
  post(message: Out, transfer: readonly Transferable[] = []): void {
    if (!this.failed) this.started().postMessage(message, transfer);
  }

  /**
   * The worker is of no more use: every call is refused with `error`, the first one given.
   * A worker still running goes on until close() stops it.
   */
  fail(error: Error): void {
    this.failed ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(this.failed);
    this.waiting.clear();
  }

  /**
   * Stops the worker; resolves once it has stopped, when the calls still waiting are
   * refused. Every call waits for the same stop: a caller may close the files the worker
   * reads once it resolves (file-digests.ts), whoever asked first.
   */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    // Nothing is sent from now on.
    this.failed ??= new Error(`${this.what} is closed`);
    await worker?.terminate();
    this.fail(this.failed);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.callerUrl, this.name);
    worker.on('message', (message: In) => this.received(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`${this.what} stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private received(message: In): void {
    if (this.other(message)) return;
    const waiting = this.waiting.get(message.id);
    if (!waiting) return;
    this.waiting.delete(message.id);
    waiting.resolve(message);
  }
}
