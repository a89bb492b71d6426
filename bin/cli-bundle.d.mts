/** Types of bin/cli-bundle.mjs (a plain ES module, so `npm start` needs no compiler to read it). */
export declare const BUNDLE: string;
export declare function freshBundle(bundle?: string, sources?: string[]): string | null;
export declare function buildBundle(): Promise<void>;
