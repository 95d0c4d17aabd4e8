"""Plants a change in a favorlab result file for tests/compare_gate.sh (the gate must catch it).

compare_plant.py shift   NEW OUT REPORT FIELD [CONDITION]  -- move FIELD in one row: the first whose FIELD compare
    judged (not listed as skipped in REPORT, the --out of NEW against the baseline), with CONDITION (a Python
    expression over `row`) true. A mean-kind statistic moves by the larger of 10·sqrt(2) standard errors (z = 10 with
    the new SE unchanged) and, where the row has the closed-form variance of one draw, 3 times Chebyshev's threshold
    sigma·sqrt(2/n)/sqrt(point alpha); a binomial one from k to 2k + 20 successes. Prints the row's key text.
compare_plant.py strip-gates NEW OUT  -- remove every declared skewness and variance field from every row.
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
        gates = {s[g] for s in schema["statistics"] for g in ("skewness", "variance") if s.get(g)}
        for row in doc["rows"]:
            for g in gates:
                row.pop(g, None)
        json.dump(doc, open(out, "w"))
        return
    report, field = json.load(open(sys.argv[4])), sys.argv[5]
    condition = sys.argv[6] if len(sys.argv) > 6 else "True"
    stat = next(s for s in schema["statistics"] if s["value"] == field)
    skipped = {(s["row"], s["field"]) for s in report["skipped"]}
    for row in doc["rows"]:
        text = " ".join(k + "=" + token(row[k]) for k in schema["key"])
        value = row.get(field)
        if not isinstance(value, (int, float)) or (text, field) in skipped or not eval(condition, {"row": row}):
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
            se = row.get(stat["stderr"])
            if not isinstance(se, (int, float)) or se <= 0:
                continue
            delta = 10 * math.sqrt(2) * se
            variance = row.get(stat.get("variance") or "", None)
            if isinstance(variance, (int, float)):
                chebyshev = math.sqrt(variance * 2 / row[stat["count"]]) / math.sqrt(report["point_alpha"])
                delta = max(delta, 3 * chebyshev)
            row[field] = value + delta
            how = "%.6g -> %.6g (z = %.1f; z critical %.3f)" % (value, value + delta, delta / (math.sqrt(2) * se),
                                                                report["z_critical"])
        json.dump(doc, open(out, "w"))
        print(text)
        print("planted %s at %s: %s" % (field, text, how), file=sys.stderr)
        return
    sys.exit("no row of %s has a compared %s with %s" % (new, field, condition))


main()
