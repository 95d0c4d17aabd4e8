#!/usr/bin/python3
"""Checks the ratio rows and target checks of scripts/peer_bench.py on made-up timings (no torch needed: the module
imports torch only in main()).

Usage: peer_bench_ratios_check.py SCRIPTS_DIR
Known answers: every ratio divides medians of the same run; a check counts the points on the target's side and
reports the worst; the performer-pytorch targets carry a ceiling, performer-pytorch over favorlab's bare GEMMs.
Power cases: a ceiling taken over favorlab's FAVOR time instead of its GEMMs, or a target counted on the wrong side,
gives other numbers than the ones required here.
"""
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, sys.argv[1])
import peer_bench  # noqa: E402


def samples_of(table):
    """{(implementation, method): {L: [seconds of each repeat]}} -> the measure() layout with a load of 1.0."""
    return {key: {length: [(s, 1.0) for s in seconds] for length, seconds in by_length.items()}
            for key, by_length in table.items()}


def main():
    failures = []

    def expect(what, got, want):
        """Numbers to 1e-12 relative (they are quotients of the same floats), anything else exactly."""
        if isinstance(want, float):
            ok = isinstance(got, (int, float)) and abs(got - want) <= 1e-12 * abs(want)
        else:
            ok = got == want
        if not ok:
            failures.append(f"{what}: got {got!r}, want {want!r}")

    def ceiling(check, index):
        points = check.get("ceiling") or []
        return points[index]["value"] if index < len(points) else None

    # Two lengths, three repeats each; medians: favorlab gemm 2.0 / 4.0, FAVOR bi 2.5 / 4.4, causal 3.0 / 5.0;
    # performer-pytorch bi 10 / 30, causal 120 / 400; exact 12 / 40 against SDPA 10 / 40.
    table = {
        ("favorlab", "gemm"): {1024: [2.0, 1.9, 2.2], 2048: [4.0, 4.1, 3.9]},
        ("favorlab", "favor_bidirectional"): {1024: [2.5, 2.6, 2.4], 2048: [4.4, 4.5, 4.3]},
        ("favorlab", "favor_causal"): {1024: [3.0, 2.9, 3.1], 2048: [5.0, 5.2, 4.8]},
        ("favorlab", "exact"): {1024: [12.0, 11.0, 13.0], 2048: [40.0, 41.0, 39.0]},
        ("pytorch", "sdpa_bidirectional"): {1024: [10.0, 9.0, 11.0], 2048: [40.0, 40.0, 40.0]},
        ("performer-pytorch", "fast_attention_bidirectional"): {1024: [10.0, 10.5, 9.5], 2048: [30.0, 31.0, 29.0]},
        ("performer-pytorch", "fast_attention_causal"): {1024: [120.0, 110.0, 130.0], 2048: [400.0, 390.0, 410.0]},
    }
    rows = peer_bench.ratio_rows(samples_of(table), [1024, 2048])
    checks = {c["claim"]: c for c in peer_bench.ratio_checks(rows, "test")}

    ratio = {(r["name"], r["L"]): r["value"] for r in rows}
    expect("performer bi / favorlab bi at 1024", ratio[("performer-pytorch fast_attention_bidirectional / favorlab "
                                                        "favor_bidirectional", 1024)], 10.0 / 2.5)
    expect("performer bi / favorlab gemm at 2048", ratio[("performer-pytorch fast_attention_bidirectional / favorlab "
                                                          "gemm", 2048)], 30.0 / 4.0)

    bi = checks["Target: FAVOR bidirectional >= 5x faster than performer-pytorch"]
    expect("bidirectional: worst ratio", bi["value"], 10.0 / 2.5)  # 4.0 at L = 1024; 30 / 4.4 = 6.8 at 2048
    expect("bidirectional: status", bi["status"], "measured")
    if not bi["detail"].startswith("1 of 2 points within the target"):
        failures.append(f"bidirectional: counted {bi['detail'][:40]!r}, want 1 of 2")
    expect("bidirectional: ceiling at 1024", ceiling(bi, 0), 10.0 / 2.0)  # FAVOR's time would give 4.0
    expect("bidirectional: ceiling at 2048", ceiling(bi, 1), 30.0 / 4.0)
    if "(at or above the target at 2 of 2)" not in bi["detail"]:
        failures.append(f"bidirectional: ceiling count missing or wrong in {bi['detail']!r}")

    causal = checks["Target: causal FAVOR >= 50x faster than performer-pytorch"]
    expect("causal: worst ratio", causal["value"], 120.0 / 3.0)  # 40 at L = 1024; 80 at 2048
    expect("causal: ceiling at 1024", ceiling(causal, 0), 120.0 / 2.0)
    if "(at or above the target at 2 of 2)" not in causal["detail"]:
        failures.append(f"causal: ceiling count missing or wrong in {causal['detail']!r}")

    exact = checks["Target: exact attention <= 1.2x PyTorch scaled_dot_product_attention"]
    expect("exact: worst ratio", exact["value"], 12.0 / 10.0)  # 1.2 at 1024 (within), 1.0 at 2048
    if not exact["detail"].startswith("2 of 2 points within the target"):
        failures.append(f"exact: counted {exact['detail'][:40]!r}, want 2 of 2")
    if "ceiling" in exact:
        failures.append("exact: a ceiling on a target that has none")

    # Without favorlab's GEMM rows the ceiling is reported as not measured, never invented.
    del table[("favorlab", "gemm")]
    rows = peer_bench.ratio_rows(samples_of(table), [1024, 2048])
    bi = {c["claim"]: c for c in peer_bench.ratio_checks(rows, "test")}[
        "Target: FAVOR bidirectional >= 5x faster than performer-pytorch"]
    if bi["ceiling"] is not None or "ceiling not measured" not in bi["detail"]:
        failures.append(f"no GEMM rows: ceiling {bi['ceiling']!r}, detail {bi['detail']!r}")

    # A ceiling below the target is counted as such: performer-pytorch bi at 1024 takes 9 (ceiling 4.5 < 5).
    table[("favorlab", "gemm")] = {1024: [2.0, 2.0, 2.0], 2048: [4.0, 4.0, 4.0]}
    table[("performer-pytorch", "fast_attention_bidirectional")][1024] = [9.0, 9.0, 9.0]
    rows = peer_bench.ratio_rows(samples_of(table), [1024, 2048])
    bi = {c["claim"]: c for c in peer_bench.ratio_checks(rows, "test")}[
        "Target: FAVOR bidirectional >= 5x faster than performer-pytorch"]
    if "(at or above the target at 1 of 2)" not in bi["detail"]:
        failures.append(f"ceiling below the target not counted: {bi['detail']!r}")

    for line in failures:
        print(f"peer_bench_ratios_check: FAIL {line}")
    if not failures:
        print("peer_bench_ratios_check: all known answers match")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
