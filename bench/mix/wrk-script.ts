/**
 * wrk's script for the realistic mix. 50,000 requests are too many to inline as Lua
 * constants (LuaJIT limits a function's constants), so each is written once as the raw
 * bytes wrk sends, in a file read by `init`, and the order in which to send them in another:
 * `request()` then only steps through the order. Each thread starts at its own place in it.
 */
import { writeFileSync } from 'node:fs';
import { DONE, luaString } from '../load.ts';
import type { BenchRequest } from '../scenarios.ts';

/** The raw HTTP/1.1 request wrk would send for `r` (wrk.format adds Host and Content-Length the same way). */
export function rawRequest(r: BenchRequest): string {
  const body = r.body ?? '';
  const lines = [`${r.method} ${r.path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(r.headers)) lines.push(`${name}: ${value}`);
  if (r.method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Writes the two data files and returns the script that reads them. */
export function mixScript(
  requests: readonly BenchRequest[],
  order: Int32Array,
  files: { requests: string; order: string },
): string {
  // A NUL never occurs in a request: it separates them.
  writeFileSync(files.requests, requests.map(rawRequest).join('\0'));
  writeFileSync(files.order, Array.from(order, (i) => i + 1).join('\n'));
  return `local prepared = {}
local order = {}
local position = 0
function init(args)
  local f = assert(io.open(${luaString(files.requests)}, "rb"))
  local data = f:read("*a")
  f:close()
  for piece in string.gmatch(data, "([^%z]+)") do prepared[#prepared + 1] = piece end
  for line in io.lines(${luaString(files.order)}) do order[#order + 1] = tonumber(line) end
  position = math.random(#order) - 1
end
function request()
  position = position % #order + 1
  return prepared[order[position]]
end
${DONE}`;
}
