/**
 * `compare --requests FILE`: calls written one a line, each sent over every chosen
 * binding (docs/migration.md#compare).
 *
 *     # a comment; blank lines are skipped
 *     getBereich bereichID=1
 *     getBild bildID=200 width=100 height=80 resizeModes=crop resizeModes=background
 *     getAbonnierteNewsletter email=anna%40example.org
 *     getNewsletter
 *
 * The operation's name, then `name=value` for its parameters, separated by spaces or
 * tabs. Values are percent-decoded (`%20` for a space, `%25` for `%`), and sent as they
 * are, not checked: `bereichID=abc` asks both services to refuse it. A list parameter
 * is repeated for each item; `resizeModes=` alone sends an empty list. A parameter left
 * out is not sent.
 */
import { OPERATIONS } from '../../contract/operations.ts';
import type { BindingName } from '../../protocol/binding.ts';
import { generatedRequest, type ReplayRequest } from './replay-request.ts';

export class RequestsFileError extends Error {}

export function parseRequestsFile(
  text: string,
  bindings: readonly BindingName[],
  namespace: string,
): ReplayRequest[] {
  const requests: ReplayRequest[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fail = (why: string): never => {
      throw new RequestsFileError(`line ${i + 1}: ${why}`);
    };
    const [name, ...words] = line.split(/[ \t]+/);
    const operation = OPERATIONS.find((op) => op.name === name);
    if (!operation)
      return fail(
        `${JSON.stringify(name)} is not an operation (one of ${OPERATIONS.map((op) => op.name).join(', ')})`,
      );
    const args: Record<string, unknown> = {};
    const lists = new Map<string, string[]>();
    for (const word of words) {
      const eq = word.indexOf('=');
      if (eq <= 0) return fail(`${JSON.stringify(word)} is not name=value`);
      const key = word.slice(0, eq);
      const field = operation.params.find((f) => f.name === key);
      if (!field)
        return fail(
          `${operation.name} has no parameter ${JSON.stringify(key)} (it has ${operation.params.map((f) => f.name).join(', ') || 'none'})`,
        );
      let value: string;
      try {
        value = decodeURIComponent(word.slice(eq + 1));
      } catch {
        return fail(`the value of ${key} is not percent-encoded properly`);
      }
      if (field.type.kind === 'array') {
        const items = lists.get(key) ?? [];
        if (value !== '') items.push(value);
        lists.set(key, items);
        args[key] = items;
      } else {
        if (key in args) return fail(`${key} is given twice`);
        args[key] = value;
      }
    }
    for (const binding of bindings) requests.push(generatedRequest(binding, operation, args, namespace));
  }
  return requests;
}
