/** Anvil (Foundry's dev node, from its npm binary) as a benchmark peer on a free port. */
import { spawn } from 'node:child_process';
import { foundryBinary } from '../../test/helpers/evm.ts';
import { waitForEthNode } from './http-load.ts';
import { freePort } from './node-process.ts';

export interface AnvilProcess {
  url: string;
  pid: number;
  stop(): void;
}

/** Anvil started with `args` (beside its port and --silent) and answering; null where npm ships no Anvil. */
export async function startAnvil(args: string[] = []): Promise<AnvilProcess | null> {
  const binary = foundryBinary('anvil');
  if (!binary) {
    console.log('  anvil: not available on this platform (npm ships it for linux-x64)');
    return null;
  }
  const port = await freePort();
  const child = spawn(binary, ['--port', String(port), '--silent', ...args], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForEthNode(url, 'anvil');
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return { url, pid: child.pid!, stop: () => child.kill('SIGKILL') };
}
