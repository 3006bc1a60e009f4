/**
 * WorkerCalls' stop: one stop, whoever asks, and every call refused after it. (Calls to
 * running workers are tested with the workers: file-encoder.test.ts, file-digests.test.ts.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerCalls } from './worker-thread.ts';

test('close() asked twice at once is one stop, awaited by both; calls after it are refused', async () => {
  const calls = new WorkerCalls<{ id: number }, { id: number }>(import.meta.url, 'none', 'a test worker');
  const first = calls.close();
  assert.equal(calls.close(), first, 'the second close waits for the first');
  await first;
  await assert.rejects(
    calls.call((id) => ({ id })),
    /a test worker is closed/,
  );
});
