/**
 * Keeps process.nextTick's optimized code on its fast path for the life of the process.
 * Node 20's nextTick queues a literal with computed keys; V8 records, weakly, the one map
 * each key saw and turns the key megamorphic for good when a map differs, as a freed one
 * does. A full collection while no tick is queued frees those maps, and from then on every
 * tick (about ten a request) is defined through V8's runtime. Holding one tick object keeps
 * its maps, and so the record, alive (docs/performance.md, "The thirty-second round").
 */
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

function noop(): void {}

/**
 * Holds one of node's tick objects from now on. Must run before the first full collection
 * that follows the first nextTick, or the record is already lost: first thing at start.
 *
 * The async hook that sees it is on for one call, but enabling any hook installs promise
 * hooks, which turns off for good V8's inlining of promise operations (its PromiseHook
 * protector): an async call about 15% dearer in a micro-benchmark. The other way to reach
 * a tick object, `executionAsyncResource()`, sends every native callback through a
 * JavaScript trampoline for good instead, which cost a repeated request more
 * (docs/performance.md).
 */
export function keepTickShape(): void {
  if (kept !== undefined) return;
  const hook = createHook({
    init(_asyncId, type, _triggerAsyncId, resource) {
      if (type === 'TickObject' && kept === undefined) kept = resource;
    },
  });
  hook.enable();
  try {
    process.nextTick(noop);
  } finally {
    hook.disable();
  }
}
