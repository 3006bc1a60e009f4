import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export const DB_OPTION: Options = { db: { type: 'string' } };

/** Parses a command's argv, turning parse failures into usage errors and answering --help. */
export function parseCommand(
  args: string[],
  options: Options,
  help: string,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } | undefined {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      process.stdout.write(`${help}\n`);
      return undefined;
    }
    return { values: values as Record<string, string | boolean | undefined>, positionals };
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${help}`);
  }
}
