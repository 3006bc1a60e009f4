/**
 * Starts a worker thread whose module sits beside the caller's: built, it is a bundle of
 * its own beside dist/cli.mjs (scripts/build.mjs); from source, a worker does not get the
 * TypeScript loader of its parent (Node 20), so it registers tsx itself before it imports
 * the worker's module.
 */
import { Worker } from 'node:worker_threads';

/** `callerUrl`: the caller's import.meta.url; `name`: the worker module's name, without extension. */
export function startWorker(callerUrl: string, name: string): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.mjs`, callerUrl));
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const worker = JSON.stringify(new URL(`./${name}.ts`, callerUrl).href);
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${worker}); })`, {
    eval: true,
  });
}
