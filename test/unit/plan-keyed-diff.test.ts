import { describe, expect, it } from "vitest";
import { ambiguityMessage, keyedDiff } from "../../src/plan/keyed-diff.js";

interface D {
  readonly key: string;
  readonly want: number;
  readonly id?: string;
}
interface L {
  readonly id: string;
  readonly key: string;
  readonly value: number;
}

const diff = (desired: D[], live: L[], owned: boolean) =>
  keyedDiff<D, L>({
    desired,
    live,
    desiredKey: (d) => d.key,
    liveKey: (l) => l.key,
    liveId: (l) => l.id,
    pinnedId: (d) => d.id,
    describe: (d) => `item["${d.key}"]`,
    owned,
    rank: (d, l) => [d.want === l.value ? 0 : 1],
  });
const short = (r: ReturnType<typeof diff>) => ({
  pairs: r.pairs.map((p) => `${p.desired.key}=${p.live?.id ?? "-"}`),
  unmatched: r.unmatched.map((l) => l.id),
  surplus: r.surplus.map((s) => `${s.live.id}->${s.kept.id}${s.tie ? " tie" : ""}`),
  ambiguous: r.ambiguous.map((a) => `${a.desired.key}:${a.candidates.map((l) => l.id).join("|")}`),
});

describe("keyed diff: several live items on one key", () => {
  const live: L[] = [
    { id: "b", key: "k", value: 1 },
    { id: "a", key: "k", value: 2 },
    { id: "c", key: "other", value: 0 },
  ];

  it("owned: keeps the best match and marks the rest surplus; other keys go on", () => {
    expect(
      short(
        diff(
          [
            { key: "k", want: 1 },
            { key: "other", want: 0 },
          ],
          live,
          true,
        ),
      ),
    ).toEqual({
      pairs: ["k=b", "other=c"],
      unmatched: [],
      surplus: ["a->b"],
      ambiguous: [],
    });
  });

  it("owned: equal candidates are decided by the lowest id, whatever the list order", () => {
    const equal: L[] = [
      { id: "z", key: "k", value: 1 },
      { id: "m", key: "k", value: 1 },
      { id: "q", key: "k", value: 1 },
    ];
    const r = short(diff([{ key: "k", want: 1 }], equal, true));
    expect(r.pairs).toEqual(["k=m"]);
    expect(r.surplus).toEqual(["z->m tie", "q->m tie"]);
    expect(short(diff([{ key: "k", want: 1 }], [...equal].reverse(), true)).pairs).toEqual(["k=m"]);
  });

  it("not owned: the item is ambiguous, its candidates are left alone, the other keys go on", () => {
    const r = diff(
      [
        { key: "k", want: 1 },
        { key: "other", want: 0 },
      ],
      live,
      false,
    );
    expect(short(r)).toEqual({
      pairs: ["k=-", "other=c"],
      unmatched: [],
      surplus: [],
      ambiguous: ["k:b|a"],
    });
    const [a] = r.ambiguous;
    expect(a && ambiguityMessage('item["k"]', a.candidates, (l) => l.id)).toMatch(
      /2 live items share this key \(ids b, a\).*pin the one to manage with `id:`/,
    );
  });

  it("not owned: an `id:` pin picks one, the other stays unmatched", () => {
    expect(short(diff([{ key: "k", want: 1, id: "a" }], live, false))).toEqual({
      pairs: ["k=a"],
      unmatched: ["b", "c"],
      surplus: [],
      ambiguous: [],
    });
  });
});
