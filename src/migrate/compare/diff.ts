/**
 * A line diff (Myers' O(ND) algorithm, "An O(ND) Difference Algorithm and Its
 * Variations", 1986) cut into hunks with context, for showing how two answers differ.
 * Answers can be long (an article with hundreds of links; base64 lines of megabytes), so
 * the common head and tail are set aside first, the edit distance searched is bounded
 * (beyond it the middle is shown as replaced whole), and long lines are clipped for
 * display around their first difference.
 */

export type DiffKind = ' ' | '-' | '+';

export interface DiffLine {
  readonly kind: DiffKind;
  readonly text: string;
}

export interface Hunk {
  /** 1-based first line of each side (as a unified diff's `@@ -a,n +b,m @@`). */
  readonly aStart: number;
  readonly aLength: number;
  readonly bStart: number;
  readonly bLength: number;
  readonly lines: readonly DiffLine[];
}

/** Beyond this many inserted plus deleted lines, the middle is one replacement. */
const MAX_EDITS = 2000;
/** A line longer than this is clipped for display. */
const MAX_SHOWN_LINE = 240;

type Edit = DiffKind;

/** The edit script turning `a` into `b`, one entry per line of either. */
function editScript(a: readonly string[], b: readonly string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const middle = middleScript(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [...Array<Edit>(head).fill(' '), ...middle, ...Array<Edit>(tail).fill(' ')];
}

function middleScript(a: readonly string[], b: readonly string[]): Edit[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return [...Array<Edit>(n).fill('-'), ...Array<Edit>(m).fill('+')];
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max;
  const v = new Int32Array(2 * max + 2);
  // trace[d] is v as it was before step d, for diagonals -d..d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
          ? v[offset + k + 1]!
          : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  return [...Array<Edit>(n).fill('-'), ...Array<Edit>(m).fill('+')];
}

function backtrack(trace: readonly Int32Array[], last: number, n: number, m: number): Edit[] {
  const script: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = last; d > 0; d--) {
    // trace[d] holds diagonals -d..d+1 of the v before step d, at index k + d.
    const v = trace[d]!;
    const at = (k: number) => v[k + d]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = at(previousK);
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      script.push(' ');
      x--;
      y--;
    }
    script.push(down ? '+' : '-');
    if (down) y--;
    else x--;
  }
  while (x > 0 && y > 0) {
    script.push(' ');
    x--;
    y--;
  }
  return script.reverse();
}

/** The differences of `a` and `b` as hunks with `context` unchanged lines around each change. */
export function diffLines(a: readonly string[], b: readonly string[], context = 3): Hunk[] {
  const script = editScript(a, b);
  const lines: Array<{ kind: DiffKind; text: string; ai: number; bi: number }> = [];
  let ai = 0;
  let bi = 0;
  for (const kind of script) {
    if (kind === ' ') lines.push({ kind, text: a[ai]!, ai: ai++, bi: bi++ });
    else if (kind === '-') lines.push({ kind, text: a[ai]!, ai: ai++, bi });
    else lines.push({ kind, text: b[bi]!, ai, bi: bi++ });
  }
  const hunks: Hunk[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.kind === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within twice the context.
    for (;;) {
      while (end < lines.length && lines[end]!.kind !== ' ') end++;
      let next = end;
      while (next < lines.length && lines[next]!.kind === ' ') next++;
      if (next < lines.length && next - end <= 2 * context) end = next;
      else break;
    }
    const stop = Math.min(lines.length, end + context);
    const slice = lines.slice(start, stop);
    const first = slice[0]!;
    hunks.push({
      aStart: first.ai + 1,
      aLength: slice.filter((l) => l.kind !== '+').length,
      bStart: first.bi + 1,
      bLength: slice.filter((l) => l.kind !== '-').length,
      lines: clipPairs(slice.map(({ kind, text }) => ({ kind, text }))),
    });
    i = stop;
  }
  return hunks;
}

/**
 * Long lines clipped for display: a run of removed lines followed by as many added ones
 * is clipped around where each pair first differs, so the difference stays in view.
 */
function clipPairs(lines: readonly DiffLine[]): DiffLine[] {
  const out = lines.map((line) => ({ ...line }));
  for (let i = 0; i < out.length; ) {
    if (out[i]!.kind !== '-') {
      out[i]!.text = clip(out[i]!.text, 0);
      i++;
      continue;
    }
    let removed = i;
    while (removed < out.length && out[removed]!.kind === '-') removed++;
    let added = removed;
    while (added < out.length && out[added]!.kind === '+') added++;
    const pairs = Math.min(removed - i, added - removed);
    for (let p = 0; p < pairs; p++) {
      const left = out[i + p]!;
      const right = out[removed + p]!;
      const at = firstDifference(left.text, right.text);
      left.text = clip(left.text, at);
      right.text = clip(right.text, at);
    }
    for (let j = i + pairs; j < added; j++)
      if (j < removed || j >= removed + pairs) out[j]!.text = clip(out[j]!.text, 0);
    i = added;
  }
  return out;
}

function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** `text` cut to about MAX_SHOWN_LINE characters showing position `at`, saying what was left out. */
export function clip(text: string, at: number): string {
  if (text.length <= MAX_SHOWN_LINE) return text;
  const from = Math.max(0, Math.min(at - 60, text.length - MAX_SHOWN_LINE));
  const to = Math.min(text.length, from + MAX_SHOWN_LINE);
  const before = from > 0 ? `[… ${from} characters] ` : '';
  const after = to < text.length ? ` [${text.length - to} characters …]` : '';
  return `${before}${text.slice(from, to)}${after}`;
}

/** Hunks as unified-diff text, at most `maxLines` lines (then a line saying how many were left out). */
export function unifiedDiff(
  hunks: readonly Hunk[],
  maxLines: number,
  names = ['baseline', 'candidate'],
): string {
  const out = [`--- ${names[0]}`, `+++ ${names[1]}`];
  let total = 0;
  for (const hunk of hunks) total += hunk.lines.length + 1;
  let shown = 0;
  for (const hunk of hunks) {
    if (shown >= maxLines) break;
    out.push(`@@ -${hunk.aStart},${hunk.aLength} +${hunk.bStart},${hunk.bLength} @@`);
    shown++;
    for (const line of hunk.lines) {
      if (shown >= maxLines) break;
      out.push(`${line.kind}${line.text}`);
      shown++;
    }
  }
  if (shown < total) out.push(`[${total - shown} more diff lines not shown]`);
  return out.join('\n');
}
