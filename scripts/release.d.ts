/** Types of scripts/release.js for the tests that bundle with it and check its manifest (test/integration/release.test.ts). */
export declare const bundle: (outfile: string) => Promise<void>;
/** `npm pack` of the built checkout at `root` with the release manifest and shrinkwrap; the tarball's path. */
export declare const packTarball: (root: string, out: string) => string;
export declare const releaseManifest: (
  pkgJson: Record<string, unknown>,
  lock: Record<string, unknown>,
) => Record<string, unknown>;
/** npm-shrinkwrap.json for the tarball: the lock's production entries, its root the manifest's. */
export declare const releaseShrinkwrap: (
  manifest: Record<string, unknown>,
  lock: Record<string, unknown>,
) => Record<string, unknown>;
export declare const dirtyFiles: (root: string) => string[];
