/** One case of the hostile corpus (test/hostile.test.ts) and the themes that group them. */
import type { ErrorCode } from '../../src/contract/errors.ts';

/** Where the XXE payloads point: a listener that must never see a connection. */
export interface Context {
  readonly trap: string;
  readonly trapHost: string;
}

export type Binding = 'soap11' | 'soap12' | 'httpget' | 'httppost' | 'http';

export interface HostileCase {
  readonly name: string;
  /** Which rendering the answer takes: a SOAP fault of that version, or an HTTP answer. */
  readonly binding: Binding;
  readonly request: (ctx: Context) => Buffer;
  /** The catalogue code, or 'ok' when the hostile part is (rightly) ignored and the call succeeds. */
  readonly code: ErrorCode | 'ok';
  /** An upper bound on the answer time, for inputs that once cost CPU. */
  readonly maxMs?: number;
}

/** One theme of the corpus: a file of test/hostile/, its cases in the order they are sent. */
export interface HostileTheme {
  readonly name: string;
  readonly cases: readonly HostileCase[];
}

export type AddCase = (
  name: string,
  binding: Binding,
  code: ErrorCode | 'ok',
  request: Buffer | ((ctx: Context) => Buffer),
  maxMs?: number,
) => void;

/** A theme and the `add` that appends a case to it. */
export function hostileTheme(name: string): { theme: HostileTheme; add: AddCase } {
  const cases: HostileCase[] = [];
  const add: AddCase = (caseName, binding, code, request, maxMs) => {
    const build = typeof request === 'function' ? request : () => request;
    cases.push(
      maxMs === undefined
        ? { name: caseName, binding, code, request: build }
        : { name: caseName, binding, code, request: build, maxMs },
    );
  };
  return { theme: { name, cases }, add };
}
