"""Plants a change in a favorlab result file for tests/compare_gate.sh (the gate must catch it).

compare_plant.py shift   NEW OUT REPORT FIELD [CONDITION]  -- move FIELD in one row: the first whose FIELD a test
    judged (REPORT, the --out of NEW against the baseline, lists each judged statistic with the test it got and the
    difference beyond which that test flags it, and the rounding floor), with CONDITION (a Python expression over `row`) true. A mean-kind
    statistic moves by 3 times the larger of them (a z test's: z = 3 z_crit; a distribution-free bound's: 3 times the
    bound); a binomial one from k to 2k + 20 successes. Prints the row's key text.
compare_plant.py strip-gates NEW OUT  -- remove every declared closed-form gate field (skewness unless sampled,
    variance, variance bound, range) from every row.
"""
import json
import math
import sys


def token(v):
    # The key text of results/result_compare.cpp: strings bare, integral numbers as integers, others shortest round-trip.
    if isinstance(v, str):
        return v
    if isinstance(v, float) and math.isfinite(v) and v == int(v) and abs(v) < 2**53:
        return str(int(v))
    return json.dumps(v)


def main():
    mode, new, out = sys.argv[1:4]
    doc = json.load(open(new))
    schema = doc["params"]["row_schema"]
    if mode == "strip-gates":
        gates = {s[g] for s in schema["statistics"] for g in ("skewness", "variance", "variance_bound", "range")
                 if s.get(g) and not (g == "skewness" and s.get("skewness_sampled"))}
        for row in doc["rows"]:
            for g in gates:
                row.pop(g, None)
        json.dump(doc, open(out, "w"))
        return
    report, field = json.load(open(sys.argv[4])), sys.argv[5]
    condition = sys.argv[6] if len(sys.argv) > 6 else "True"
    stat = next(s for s in schema["statistics"] if s["value"] == field)
    judged = {(s["row"], s["field"]): s for s in report["judged"]
              if s["test"] not in ("none", "rounding") and s["threshold"] is not None}
    for row in doc["rows"]:
        text = " ".join(k + "=" + token(row[k]) for k in schema["key"])
        value = row.get(field)
        if not isinstance(value, (int, float)) or (text, field) not in judged or not eval(condition, {"row": row}):
            continue
        if stat.get("kind") == "binomial":
            k, n = row[stat["successes"]], row[stat["count"]]
            if n == 0:
                continue
            moved = min(n, 2 * k + 20)
            row[stat["successes"]], row[field] = moved, moved / n
            z = (moved - k) / math.sqrt(moved + k)  # the normal z of the conditional test at equal trials
            how = "%d -> %d successes of %d (normal z of the conditional test %.1f)" % (k, moved, n, z)
        else:
            test = judged[(text, field)]
            delta = 3 * max(test["threshold"], test["floor"])  # beyond the rounding floor too
            if delta <= 0 or delta != delta:
                continue
            row[field] = value + delta
            how = "%.6g -> %.6g (3 times the %s threshold %.3g)" % (value, value + delta, test["test"],
                                                                  test["threshold"])
        json.dump(doc, open(out, "w"))
        print(text)
        print("planted %s at %s: %s" % (field, text, how), file=sys.stderr)
        return
    sys.exit("no row of %s has a compared %s with %s" % (new, field, condition))


main()
