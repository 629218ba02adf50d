/**
 * The wire shapes the emulator shares with the client, restated here: the emulator imports
 * nothing of the product (docs/architecture.md), as it keeps its own lists of the spec's
 * names (a shared misreading would pass both). Same shape as src/core/wire.ts VcsRepoWire
 * (spec: api-v3.md, a pipeline's `config.vcs`).
 */
export interface VcsRepoWire {
  readonly provider: string;
  readonly repo_id: string;
  readonly repo_full_name: string;
}
