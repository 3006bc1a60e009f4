/**
 * Keeps process.nextTick cheap for the life of the process.
 *
 * Node 20's nextTick queues an object literal with computed keys
 * (`{ [async_id_symbol]: …, [trigger_async_id_symbol]: …, callback, args }`, lib/internal/
 * process/task_queues.js). V8 (11.3) records, per key of such a literal, the one hidden class
 * (map) it saw, and holds it weakly; its runtime (Runtime_DefineKeyedOwnPropertyInLiteral)
 * turns the site megamorphic for good the first time the recorded map differs, and a map the
 * garbage collector freed differs from every map. A server's tick objects live for a turn of
 * the event loop, so a full collection while none is queued frees their maps, and from the
 * next request on every nextTick (about ten a request, all node's own) goes through V8's
 * runtime: about 3 µs a request, and slower code around it (docs/performance.md, "The
 * thirty-second round"). One tick object held for the life of the process keeps its maps,
 * and the literal's record, alive.
 */
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

function noop(): void {}

/** Holds one of node's tick objects from now on; the earlier at start, the better. */
export function keepTickShape(): void {
  if (kept !== undefined) return;
  // The init hook is the one public way to see a tick object; it is on for one call only.
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

/** Whether a tick object is held (for tests). */
export function tickShapeKept(): boolean {
  return kept !== undefined;
}
