/**
 * Fees of a sealed bank, as Agave's fee distribution pays them: the governor's burn percentage is
 * burned and the rest is paid to the validator's identity as a `Fee` reward. Also the fee-rate
 * governor's state: the lamports per signature, derived again after every block from its signatures.
 */
import { SYSTEM_PROGRAM_ID, type Address } from '../common/pubkey.ts';
import { RENT_EXEMPT_RENT_EPOCH, type Account } from '../runtime/account.ts';
import type { Bank } from './bank.ts';
import type { FeeRateGovernor } from './genesis-config.ts';

export class Fees {
  constructor(
    private readonly governor: FeeRateGovernor,
    /** Who collects the fees: the validator's identity. */
    private readonly collector: Address,
    /** What the working bank charges per signature. */
    private lamports: number,
  ) {}

  get lamportsPerSignature(): number {
    return this.lamports;
  }

  /** Pays out the bank's collected fees; returns the lamports burned. */
  distribute(bank: Bank): number {
    if (bank.feesCollected === 0) return 0;
    const burn = Math.floor((bank.feesCollected * this.governor.burnPercent) / 100);
    const deposit = bank.feesCollected - burn;
    if (deposit > 0) {
      const prev = bank.get(this.collector);
      const next: Account = prev
        ? { ...prev, lamports: prev.lamports + deposit }
        : { lamports: deposit, data: new Uint8Array(0), owner: SYSTEM_PROGRAM_ID, executable: false, rentEpoch: RENT_EXEMPT_RENT_EPOCH };
      bank.set(this.collector, next);
      bank.rewards.push({ pubkey: this.collector, lamports: deposit, postBalance: next.lamports, rewardType: 'Fee', commission: null });
    }
    return burn;
  }

  /** The next bank's lamports per signature, from the signatures of the bank just sealed. */
  updateAfter(sealed: Bank): void {
    this.lamports = nextLamportsPerSignature(this.governor, this.lamports, sealed.signatureCount);
  }
}

/**
 * The next slot's lamports per signature (FeeRateGovernor::new_derived): it steps 5% of the target
 * toward target × signatures-last-slot / target-signatures, clamped to [min, max]. Genesis starts at
 * the minimum, so an idle or lightly used chain charges 5,000 per signature.
 */
export function nextLamportsPerSignature(g: FeeRateGovernor, current: number, signaturesLastSlot: number): number {
  if (g.targetSignaturesPerSlot === 0) return g.targetLamportsPerSignature;
  const clamp = (v: number) => Math.min(g.maxLamportsPerSignature, Math.max(g.minLamportsPerSignature, v));
  const desired = clamp(Math.floor((g.targetLamportsPerSignature * signaturesLastSlot) / g.targetSignaturesPerSlot));
  if (desired === current) return current;
  const step = Math.max(1, Math.floor(g.targetLamportsPerSignature / 20));
  return clamp(current + (desired > current ? step : -step));
}
