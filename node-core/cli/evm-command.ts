/**
 * `isthmus evm transfer-to-evm [--lamports] <EVM_ADDRESS> <AMOUNT>`: moves native tokens into the
 * EVM space over any node's JSON-RPC, as Velas's `velas evm transfer-to-evm` does: signed with a
 * Solana CLI keypair file, sent with preflight, confirmed, and its signature printed.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { isValidAddress, isValidChecksumAddress } from '@ethereumjs/util';
import { encodeBase58 } from '../common/base58.ts';
import { depositInstructions } from '../evm/deposit.ts';
import { readKeypairFile, type Keypair } from '../keys/keypair.ts';
import { compileMessage, signTransaction } from '../runtime/message-builder.ts';

export const DEFAULT_KEYPAIR = path.join(os.homedir(), '.config', 'solana', 'id.json');
export const DEFAULT_URL = 'http://127.0.0.1:8899';
const LAMPORTS_PER_TOKEN = 1_000_000_000n;
const CONFIRM_TIMEOUT_MS = 60_000;

export const EVM_HELP_TEXT = `isthmus evm: move value between the native and the EVM space

Usage:
  isthmus evm transfer-to-evm [OPTIONS] <EVM_ADDRESS> <AMOUNT>

Arguments:
  EVM_ADDRESS              Receiver in the EVM space (0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum)
  AMOUNT                   Amount in native tokens (up to 9 decimals), or in lamports with --lamports

Options:
      --lamports           AMOUNT is in lamports
  -k, --keypair FILE       Signer and fee payer: a Solana CLI keypair file [default: ${DEFAULT_KEYPAIR}]
  -u, --url URL            JSON RPC URL of the node [default: ${DEFAULT_URL}]
  -h, --help               Print this help

The EVM space sees 1 lamport as 10^9 wei. The other way, EVM to native, is the transferToNative(bytes32)
precompile at 0x56454c41532d434841494e000000000053574150, called from any EVM wallet.
`;

export type EvmCommand =
  | { command: 'transfer-to-evm'; evmAddress: string; lamports: bigint; keypair: string; url: string }
  | { command: 'help'; text: string }
  | { command: 'error'; message: string };

const fail = (message: string): EvmCommand => ({ command: 'error', message: `error: ${message} (see isthmus evm --help)` });

/** A decimal amount of native tokens in lamports, exactly (no floating point); null when malformed. */
export function parseTokenAmount(text: string): bigint | null {
  const m = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text);
  if (!m) return null;
  return BigInt(m[1]!) * LAMPORTS_PER_TOKEN + BigInt((m[2] ?? '').padEnd(9, '0'));
}

export function parseEvmCommand(argv: string[]): EvmCommand {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') return { command: 'help', text: EVM_HELP_TEXT };
  if (sub !== 'transfer-to-evm') return fail(`unknown evm command '${sub}'; the command is transfer-to-evm`);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { lamports: { type: 'boolean' }, keypair: { type: 'string', short: 'k' }, url: { type: 'string', short: 'u' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    return fail((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help', text: EVM_HELP_TEXT };
  if (positionals.length !== 2) return fail(`transfer-to-evm takes <EVM_ADDRESS> <AMOUNT>, got ${positionals.length} argument${positionals.length === 1 ? '' : 's'}`);
  const [address, amountText] = positionals as [string, string];
  if (!isValidAddress(address)) return fail(`EVM_ADDRESS must be 0x and 40 hex digits, got '${address}'`);
  const mixedCase = address.slice(2) !== address.slice(2).toLowerCase() && address.slice(2) !== address.slice(2).toUpperCase();
  if (mixedCase && !isValidChecksumAddress(address)) return fail(`EVM_ADDRESS '${address}' has a bad EIP-55 checksum (a typo?); write it in lower case to skip the check`);
  const lamports = values.lamports ? (/^\d+$/.test(amountText) ? BigInt(amountText) : null) : parseTokenAmount(amountText);
  if (lamports === null) return fail(values.lamports ? `AMOUNT must be a whole number of lamports with --lamports, got '${amountText}'` : `AMOUNT must be a number of native tokens with at most 9 decimals, got '${amountText}'`);
  if (lamports === 0n) return fail('AMOUNT must be greater than zero');
  if (lamports >= 1n << 64n) return fail(`AMOUNT is too large: ${lamports} lamports does not fit a u64`);
  let url = values.url ?? DEFAULT_URL;
  try {
    url = new URL(url).toString();
  } catch {
    return fail(`--url must be a URL such as ${DEFAULT_URL}, got '${url}'`);
  }
  return { command: 'transfer-to-evm', evmAddress: address.toLowerCase(), lamports, keypair: values.keypair ?? DEFAULT_KEYPAIR, url };
}

class RpcFailure extends Error {}

async function call(url: string, method: string, params: unknown[]): Promise<any> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  } catch (e) {
    throw new RpcFailure(`cannot reach the node at ${url}: ${(e as Error & { cause?: Error }).cause?.message ?? (e as Error).message}`);
  }
  const body = (await res.json().catch(() => null)) as { result?: unknown; error?: { message: string; data?: { logs?: string[] } } } | null;
  if (!body) throw new RpcFailure(`${url} did not answer ${method} with JSON-RPC (HTTP ${res.status})`);
  if (body.error) {
    const logs = body.error.data?.logs?.length ? `\n  ${body.error.data.logs.join('\n  ')}` : '';
    throw new RpcFailure(`${method}: ${body.error.message}${logs}`);
  }
  return body.result;
}

/** Sends the deposit and waits until it is confirmed; returns its signature. */
export async function transferToEvm(cmd: Extract<EvmCommand, { command: 'transfer-to-evm' }>, signer: Keypair): Promise<string> {
  const { value: latest } = await call(cmd.url, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
  const tx = signTransaction(compileMessage(signer.address, depositInstructions(signer.address, cmd.evmAddress, cmd.lamports), latest.blockhash), [signer]);
  const signature = encodeBase58(tx.signatures[0]!);
  await call(cmd.url, 'sendTransaction', [Buffer.from(tx.wire).toString('base64'), { encoding: 'base64', preflightCommitment: 'confirmed' }]);
  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  for (;;) {
    const { value } = await call(cmd.url, 'getSignatureStatuses', [[signature]]);
    const status = value[0];
    if (status?.err) throw new RpcFailure(`transaction ${signature} failed: ${JSON.stringify(status.err)}`);
    if (status && status.confirmationStatus !== 'processed') return signature;
    const { value: height } = { value: await call(cmd.url, 'getBlockHeight', [{ commitment: 'confirmed' }]) };
    if (height > latest.lastValidBlockHeight) throw new RpcFailure(`transaction ${signature} expired before it was confirmed`);
    if (Date.now() > deadline) throw new RpcFailure(`transaction ${signature} was not confirmed within ${CONFIRM_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function runEvmCommand(argv: string[], out: (line: string) => void, err: (line: string) => void): Promise<number> {
  const cmd = parseEvmCommand(argv);
  if (cmd.command === 'help') {
    out(cmd.text.trimEnd());
    return 0;
  }
  if (cmd.command === 'error') {
    err(cmd.message);
    return 2;
  }
  let signer: Keypair;
  try {
    signer = readKeypairFile(cmd.keypair);
  } catch (e) {
    err(`error: ${(e as Error).message}`);
    return 1;
  }
  out(`Loading signer key pair from ${cmd.keypair} (${signer.address})`);
  try {
    out(`Transaction signature = ${await transferToEvm(cmd, signer)}`);
    return 0;
  } catch (e) {
    if (!(e instanceof RpcFailure)) throw e;
    err(`error: ${e.message}`);
    return 1;
  }
}
