/**
 * Checkout key pairs (spec: api-v2-v1.md "Checkout key": `public-key`, `fingerprint`; the
 * `digest` parameter: `sha256` or `md5`, default md5). The emulator makes a real Ed25519
 * pair from a 32-byte seed, so a key is the same on every run for the same seed, and a
 * client sees the forms it meets on the service: an OpenSSH public key, an MD5 fingerprint
 * in colon-separated hex and a SHA-256 one as `SHA256:` + unpadded base64 (which holds `/`
 * and `+`: the spec's "sha256 URL-encoded").
 */
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";

/** PKCS#8 prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface KeyPair {
  /** `ssh-ed25519 AAAA…`. */
  readonly publicKey: string;
  readonly md5: string;
  readonly sha256: string;
}

const sshString = (b: Buffer): Buffer => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
};

/** The public half and fingerprints of the pair whose private seed is `seed` (32 bytes). */
export const keyPairOf = (seed: Buffer): KeyPair => {
  const priv = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: "der",
    type: "pkcs8",
  });
  const jwk = createPublicKey(priv).export({ format: "jwk" });
  const raw = Buffer.from(String(jwk.x), "base64url");
  const blob = Buffer.concat([sshString(Buffer.from("ssh-ed25519")), sshString(raw)]);
  const md5 = createHash("md5").update(blob).digest("hex");
  return {
    publicKey: `ssh-ed25519 ${blob.toString("base64")}`,
    md5: md5.match(/../g)?.join(":") ?? md5,
    sha256: `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`,
  };
};

/** A deterministic 32-byte seed from parts (a project id and a counter). */
export const keySeed = (...parts: readonly string[]): Buffer =>
  createHash("sha256")
    .update(`waybill-emulator-key\u0000${parts.join("\u0000")}`)
    .digest();
