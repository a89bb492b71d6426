/** The three commitment levels a read can ask for, and the old names clients still send for them. */

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Old and new names of the three levels (1.5.5 renamed them). */
export function normalizeCommitment(c: string | undefined, fallback: Commitment = 'finalized'): Commitment | null {
  switch (c) {
    case undefined:
      return fallback;
    case 'processed':
    case 'recent':
      return 'processed';
    case 'confirmed':
    case 'single':
    case 'singleGossip':
      return 'confirmed';
    case 'finalized':
    case 'max':
    case 'root':
      return 'finalized';
    default:
      return null;
  }
}
