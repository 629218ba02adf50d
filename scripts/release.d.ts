/** Types of scripts/release.js for the test that bundles with it (test/integration/release.test.ts). */
export declare const bundle: (outfile: string) => Promise<void>;
