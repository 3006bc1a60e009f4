/**
 * The worker thread of render-thread.ts: a RenderSession whose records arrive as messages,
 * rendering one batch at a time, in the order asked, and asking the import's thread for
 * any record it was not told of.
 */
import { parentPort } from 'node:worker_threads';
import type { RecordKind } from '../contract/documents.ts';
import { type KnownRow, RenderSession } from './render-session.ts';
import { type FromRenderer, fromColumns, slabsOf, type ToRenderer } from './render-thread.ts';

const port = parentPort;
if (!port) throw new Error('render-worker.ts runs as a worker thread (render-thread.ts)');

let nextFetch = 0;
const fetching = new Map<number, (rows: readonly KnownRow[]) => void>();

function fetch(kind: RecordKind, ids: readonly string[] | null): Promise<KnownRow[]> {
  const id = nextFetch++;
  return new Promise((resolve) => {
    fetching.set(id, (rows) => resolve([...rows]));
    port!.postMessage({ t: 'fetch', id, kind, ids } satisfies FromRenderer);
  });
}

const session = new RenderSession({ rows: fetch, all: (kind) => fetch(kind, null) });
// Batches render one after another: a batch's records may have been told of after the one before it was asked.
let rendering = Promise.resolve();

port.on('message', (message: ToRenderer) => {
  if (message.t === 'know') session.know(message.kind, fromColumns(message.rows));
  else if (message.t === 'recycle') session.recycle(message.slabs);
  else if (message.t === 'rows') {
    fetching.get(message.id)?.(message.rows);
    fetching.delete(message.id);
  } else {
    const { id, name, keys } = message;
    rendering = rendering.then(async () => {
      try {
        const batch = await session.render(name, keys);
        port.postMessage({ t: 'rendered', id, batch } satisfies FromRenderer, slabsOf(batch.answers));
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        port.postMessage({ t: 'failed', id, message: `rendering ${name}: ${text}` } satisfies FromRenderer);
      }
    });
  }
});
