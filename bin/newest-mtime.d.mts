export declare function newestMtime(p: string): number;
