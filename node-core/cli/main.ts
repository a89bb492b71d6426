/** The `isthmus` command: parses the command line, then runs the node (run-node.ts), the `evm` command or verify-ledger. */
import { parseCommandLine } from './args.ts';

export async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'evm') {
    const { runEvmCommand } = await import('./evm-command.ts');
    return runEvmCommand(argv.slice(1), (line) => process.stdout.write(line + '\n'), (line) => process.stderr.write(line + '\n'));
  }
  const cmd = parseCommandLine(argv);
  if (cmd.command === 'help') {
    process.stdout.write(cmd.text);
    return 0;
  }
  if (cmd.command === 'error') {
    process.stderr.write(cmd.message + '\n');
    return 2;
  }
  if (cmd.command === 'verify-ledger') {
    const { runVerifyLedger } = await import('./verify-ledger.ts');
    return runVerifyLedger(cmd.ledger, (text) => process.stdout.write(text), (text) => process.stderr.write(text));
  }
  const { runNode } = await import('./run-node.ts');
  return runNode(cmd.options);
}
