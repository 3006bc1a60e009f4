/**
 * How a call reaches its handler. `handle` is typed by operation: its arguments and result
 * are those the contract infers for the operation named. `invoke` is the one place where
 * a call decoded at run time (an Operation found by name, and the arguments coerceArguments
 * made from that operation's parameters) meets the typed handlers.
 */
import type {
  Arguments,
  ArgumentsOf,
  Operation,
  OperationName,
  Result,
  ResultOf,
} from '../contract/operations.ts';
import { HANDLERS, type ServiceContext } from './handlers.ts';

export function handle<N extends OperationName>(
  name: N,
  args: ArgumentsOf<N>,
  context: ServiceContext,
): Promise<ResultOf<N>> {
  return HANDLERS[name](args, context);
}

function isOperationName(name: string): name is OperationName {
  return Object.hasOwn(HANDLERS, name);
}

export function invoke(operation: Operation, args: Arguments, context: ServiceContext): Promise<Result> {
  const name = operation.name;
  if (!isOperationName(name)) throw new Error(`no handler for operation ${name}`);
  // coerceArguments made `args` from `operation.params`: every parameter present, an int a
  // number, a string a string, a list an array of its enumeration's values. ArgumentsOf
  // infers its type from those same fields, so this restates what coercion established
  // (infer.test.ts pins ArgumentsOf, coerce.test.ts what coercion returns).
  return handle(name, args as ArgumentsOf<typeof name>, context);
}
