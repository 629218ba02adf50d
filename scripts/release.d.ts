/** Types of scripts/release.js for the tests that bundle and pack with it (test/integration/release.test.ts). */
export declare const bundle: (outfile: string) => Promise<void>;
/** `npm pack` of the built checkout at `root` with the release manifest and shrinkwrap; the tarball's path. */
export declare const packTarball: (root: string, out: string) => string;
export declare const releaseManifest: (
  pkgJson: Record<string, unknown>,
  lock: Record<string, unknown>,
) => Record<string, unknown>;
export declare const dirtyFiles: (root: string) => string[];
