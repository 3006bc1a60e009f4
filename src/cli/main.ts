/** `scoop <command>`: thin over the core; parses argv, prints, sets the exit code. */
import { StoreLocationError, StoreUnavailableError } from '../store/content-store.ts';
import { keepTickShape } from '../support/tick-shape.ts';
import { UsageError } from './usage.ts';
import { version } from './version.ts';

const USAGE = `Usage: scoop <command> [options]

Commands:
  serve              Serve the SOAP and HTTP API
  import <bundle>    Load a content bundle into the store
  token create|list|revoke
                     Manage the tokens scoop.asmx operations require
  migrate            Bring the store's schema to the latest version
  harvest --from URL --out DIR
                     Copy a running service's content (the original's, or scoop's)
                     into a bundle, through its SOAP API (docs/migration.md)
  compare            Send the same requests to two services and compare the answers

Run "scoop <command> --help" for the options of a command, "scoop --version" for the version.`;

type Command = (args: string[]) => Promise<number>;

/**
 * Each command's module is loaded when it runs, with the dependencies only it needs: the
 * server's (sharp, prom-client, pino, the XML parser) cost a SQLite `scoop import` or
 * `scoop token` about 150 ms of start (docs/performance.md, "The nineteenth round").
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => {
    // Before the server's first full collection can free the maps V8 recorded for nextTick.
    keepTickShape();
    return (await import('./serve-command.ts')).serveCommand;
  },
  import: async () => (await import('./import-command.ts')).importCommand,
  token: async () => (await import('./token-command.ts')).tokenCommand,
  migrate: async () => (await import('./migrate-command.ts')).migrateCommand,
  compare: async () => (await import('./compare-command.ts')).compareCommand,
  harvest: async () => (await import('./harvest-command.ts')).harvestCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`scoop ${version()}\n`);
    return 0;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    process.stderr.write(`scoop: unknown command ${JSON.stringify(name)}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (error) {
    if (error instanceof UsageError || error instanceof StoreLocationError) {
      process.stderr.write(`scoop ${name}: ${error.message}\n`);
      return 2;
    }
    // A database that is down or refuses us is an operator's problem, not a crash: one line.
    if (error instanceof StoreUnavailableError) {
      process.stderr.write(`scoop ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}
