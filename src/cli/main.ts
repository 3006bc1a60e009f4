/** `scoop <command>`: thin over the core; parses argv, prints, sets the exit code. */
import { importCommand } from './import-command.ts';
import { serveCommand } from './serve-command.ts';
import { tokenCommand } from './token-command.ts';
import { UsageError } from './usage.ts';

const USAGE = `Usage: scoop <command> [options]

Commands:
  serve              Serve the SOAP and HTTP API
  import <bundle>    Load a content bundle into the store
  token create|list|revoke
                     Manage the tokens scoop.asmx operations require

Run "scoop <command> --help" for the options of a command.`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  serve: serveCommand,
  import: importCommand,
  token: tokenCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`scoop: unknown command ${JSON.stringify(name)}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`scoop ${name}: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
