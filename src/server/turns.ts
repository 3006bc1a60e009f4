/**
 * Fair service of connections under overload (issue 14 item 5).
 *
 * libuv accepts at most one connection each time it polls the listening socket
 * (`uv__server_io` in libuv 1.46, Node 20), that is once per event-loop turn. A turn that
 * answers every ready request at once lasts as long as all their work together: with 1,000
 * busy connections, tens of milliseconds. So a burst of new connections (clients reconnecting
 * to a server under load, or all at once to one just started) waits in the kernel's accept
 * queue for seconds, one accept a turn, while the connections already accepted are served
 * in milliseconds — measured: 1,000 closed-loop connections, p50 31 ms and p99 5.1 s, every
 * slow request's wait spent before node had accepted its connection (docs/performance.md).
 *
 * So a turn does a bounded amount of request work (`budgetMs`): requests that arrive once the
 * turn's budget is spent wait in one FIFO queue, worked off a budget at a time in later turns
 * (setImmediate runs them after the next poll, which accepts the next connection and reads
 * what has arrived). While the queue holds anything, every new request joins its end, so no
 * connection overtakes another. Under ordinary load a turn never reaches the budget and each
 * request runs at once, as before.
 */

export interface Turns {
  /**
   * Whether a request that arrives now may run at once: the queue is empty and this turn's
   * budget is not spent. Otherwise it goes to `later`.
   */
  runsNow(): boolean;
  /** Queues work for a later turn, behind everything queued before it. */
  later(work: () => void): void;
  /** Requests waiting for a later turn. */
  readonly waiting: number;
}

/** `budgetMs` 0 turns the bound off: every request runs at once, as node would run it. */
export function turns(budgetMs: number, now: () => number = () => performance.now()): Turns {
  const queue: (() => void)[] = [];
  let head = 0;
  /** When the current turn's first request ran; undefined between turns. */
  let turnStarted: number | undefined;
  let draining = false;

  // setImmediate callbacks run after the poll phase that read the requests: the turn is over.
  const endTurn = () => {
    turnStarted = undefined;
  };

  const drain = () => {
    const started = now();
    while (head < queue.length && now() - started < budgetMs) {
      const work = queue[head]!;
      queue[head++] = noop;
      run(work);
    }
    if (head < queue.length) {
      // An immediate set while immediates run waits for the next turn, after its poll.
      setImmediate(drain);
      return;
    }
    queue.length = 0;
    head = 0;
    draining = false;
  };

  return {
    runsNow() {
      if (budgetMs === 0) return true;
      if (head < queue.length) return false;
      const at = now();
      if (turnStarted === undefined) {
        turnStarted = at;
        setImmediate(endTurn);
      }
      return at - turnStarted < budgetMs;
    },
    later(work) {
      queue.push(work);
      if (!draining) {
        draining = true;
        setImmediate(drain);
      }
    },
    get waiting() {
      return queue.length - head;
    },
  };
}

function noop(): void {}

/** One request's failure must not stop those queued behind it; it still surfaces as it would have. */
function run(work: () => void): void {
  try {
    work();
  } catch (error) {
    process.nextTick(() => {
      throw error;
    });
  }
}
