/**
 * One process of postFromProcesses (http-load.ts): takes its share of the bodies over IPC, sends
 * them when told to start, and reports its result with its wall-clock start and end and the CPU time it spent sending.
 */
import { postRaw } from './http-load.ts';

interface Share {
  url: string;
  bodies: string[];
  concurrency: number;
}

let share: Share | undefined;
process.on('message', async (m: { share?: Share; go?: true }) => {
  if (m.share) {
    share = m.share;
    process.send!({ ready: true });
    return;
  }
  if (!m.go || !share) return;
  const startedAt = performance.timeOrigin + performance.now();
  const cpuBefore = process.cpuUsage();
  const result = await postRaw(share.url, share.bodies, share.concurrency);
  const cpu = process.cpuUsage(cpuBefore);
  const endedAt = performance.timeOrigin + performance.now();
  process.send!({ result, startedAt, endedAt, cpuMs: (cpu.user + cpu.system) / 1000 }, () => process.exit(0));
});
