/**
 * The HTML report: one self-contained file (inline style, no script, no external
 * asset) an operator can attach to a change ticket, with the summary and each
 * difference side by side. Everything in it that came from a request or an answer is
 * hostile input and is escaped; a Content-Security-Policy that allows nothing but the
 * inline style keeps the page inert even so.
 */
import { escapeHtml } from '../../xml/escape.ts';
import type { DiffLine, Hunk } from './diff.ts';
import type { CompareReport, ReportEntry } from './report.ts';
import { summaryLine } from './run-compare.ts';

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #1b1b1b; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; border-top: 1px solid #ccc; padding-top: 1em; }
table.summary td, table.summary th { padding: 0.2em 1em 0.2em 0; text-align: left; }
pre, td.code { font: 12px/1.35 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-all; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; max-height: 20em; }
table.diff { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.diff td { vertical-align: top; padding: 0 0.4em; border-left: 1px solid #eee; }
table.diff td.n { width: 3.5em; color: #888; text-align: right; font: 12px ui-monospace, monospace; }
table.diff tr.hunk td { background: #eef3fb; color: #555; }
td.del { background: #fde8e8; } td.add { background: #e6f6e6; } td.none { background: #fafafa; }
.status { font-family: ui-monospace, monospace; }
`;

interface Row {
  left?: { n: number; text: string; kind: 'ctx' | 'del' };
  right?: { n: number; text: string; kind: 'ctx' | 'add' };
}

/** A hunk as side-by-side rows: context on both sides, removed lines beside the added ones. */
function rowsOf(hunk: Hunk): Row[] {
  const rows: Row[] = [];
  let a = hunk.aStart;
  let b = hunk.bStart;
  const lines: readonly DiffLine[] = hunk.lines;
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.kind === ' ') {
      rows.push({
        left: { n: a++, text: line.text, kind: 'ctx' },
        right: { n: b++, text: line.text, kind: 'ctx' },
      });
      i++;
      continue;
    }
    const removed: string[] = [];
    const added: string[] = [];
    while (i < lines.length && lines[i]!.kind === '-') removed.push(lines[i++]!.text);
    while (i < lines.length && lines[i]!.kind === '+') added.push(lines[i++]!.text);
    for (let j = 0; j < Math.max(removed.length, added.length); j++) {
      const row: Row = {};
      if (j < removed.length) row.left = { n: a++, text: removed[j]!, kind: 'del' };
      if (j < added.length) row.right = { n: b++, text: added[j]!, kind: 'add' };
      rows.push(row);
    }
  }
  return rows;
}

function cell(side: Row['left'] | Row['right']): string {
  if (!side) return '<td class="n"></td><td class="code none"></td>';
  return `<td class="n">${side.n}</td><td class="code ${side.kind}">${escapeHtml(side.text)}</td>`;
}

function diffTable(hunks: readonly Hunk[]): string {
  const body = hunks
    .map((hunk) => {
      const head = `<tr class="hunk"><td colspan="4">@@ -${hunk.aStart},${hunk.aLength} +${hunk.bStart},${hunk.bLength} @@</td></tr>`;
      return (
        head +
        rowsOf(hunk)
          .map((row) => `<tr>${cell(row.left)}${cell(row.right)}</tr>`)
          .join('')
      );
    })
    .join('');
  return `<table class="diff"><colgroup><col style="width:3.5em"><col><col style="width:3.5em"><col></colgroup><tr><th></th><th>baseline</th><th></th><th>candidate</th></tr>${body}</table>`;
}

function requestBlock(entry: ReportEntry): string {
  const { request } = entry;
  const headers = Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`);
  const text = [`${request.method} ${request.path}`, ...headers, ...(request.body ? ['', request.body] : [])];
  return `<pre>${escapeHtml(text.join('\n'))}</pre>`;
}

function entrySection(entry: ReportEntry, n: number): string {
  const meta = [
    entry.at ? `at ${escapeHtml(entry.at)}` : '',
    entry.requestId ? `request id <code>${escapeHtml(entry.requestId)}</code>` : '',
  ].filter((s) => s !== '');
  return [
    `<section id="e${n}">`,
    `<h2>${n}. ${escapeHtml(entry.outcome)}: ${escapeHtml(entry.description)} over ${escapeHtml(entry.binding)}</h2>`,
    meta.length > 0 ? `<p>${meta.join(', ')}</p>` : '',
    requestBlock(entry),
    `<p class="status">baseline: ${escapeHtml(entry.baseline)}<br>candidate: ${escapeHtml(entry.candidate)}</p>`,
    entry.reason ? `<p>${escapeHtml(entry.reason)}</p>` : '',
    entry.hunks ? diffTable(entry.hunks) : '',
    '</section>',
  ].join('\n');
}

export function renderHtml(report: CompareReport): string {
  const entries = [...report.differences, ...report.failures];
  const counts = Object.entries(report.summary)
    .map(([outcome, n]) => `<tr><th>${escapeHtml(outcome)}</th><td>${n}</td></tr>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(report.title)}: ${escapeHtml(summaryLine(report.summary))}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${escapeHtml(report.title)}</h1>
<p>Baseline <code>${escapeHtml(report.baseline)}</code>, candidate <code>${escapeHtml(report.candidate)}</code>, ${escapeHtml(report.generated)}.</p>
<p><strong>${escapeHtml(summaryLine(report.summary))}</strong>${report.skipped > 0 ? `; ${report.skipped} entries skipped (not calls of the service)` : ''}${report.notListed > 0 ? `; ${report.notListed} more not listed` : ''}.</p>
<table class="summary">${counts}</table>
${entries.map((entry, i) => entrySection(entry, i + 1)).join('\n')}
</body>
</html>
`;
}
