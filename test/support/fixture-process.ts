/**
 * The fixture server (fixture-server.ts) in a child process of its own, so a test can
 * read the server's memory without its own allocations mixed in. Started with
 * `--expose-gc` by `forkFixture`; answers IPC messages:
 *   'memory' → the process's memory after full garbage collections, with the size of
 *              V8's young generation (which grows, empty, up to a fixed maximum)
 *   'stop'   → stops the server and exits.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import { startFixture } from './fixture-server.ts';

export interface Memory {
  readonly usage: NodeJS.MemoryUsage;
  /** Bytes reserved for V8's new space: a bounded buffer, not live data. */
  readonly newSpace: number;
}

export interface ForkedFixture {
  readonly child: ChildProcess;
  readonly port: number;
  /** The child's memory after forced garbage collections. */
  memory(): Promise<Memory>;
  stop(): Promise<void>;
}

interface Reply {
  readonly port?: number;
  readonly memory?: Memory;
}

function nextReply(child: ChildProcess, pick: (reply: Reply) => boolean): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Reply) => {
      if (!pick(message)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => {
      child.off('message', onMessage);
      reject(new Error(`the fixture process exited (${code})`));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function forkFixture(): Promise<ForkedFixture> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const { port } = await nextReply(child, (r) => r.port !== undefined);
  return {
    child,
    port: port!,
    async memory() {
      const reply = nextReply(child, (r) => r.memory !== undefined);
      child.send('memory');
      return (await reply).memory!;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    },
  };
}

async function collectGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 10; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function runChild(): Promise<void> {
  const fixture = await startFixture();
  const send = (message: Reply) => process.send?.(message);
  process.on('message', async (message: string) => {
    if (message === 'memory') {
      await collectGarbage();
      const newSpace = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
      send({ memory: { usage: process.memoryUsage(), newSpace } });
    } else if (message === 'stop') {
      await fixture.stop();
      process.exit(0);
    }
  });
  // The parent went away without saying stop: do not linger.
  process.on('disconnect', () => process.exit(0));
  send({ port: Number(new URL(fixture.server.url).port) });
}

if (process.argv.includes('--child') && process.send) await runChild();
