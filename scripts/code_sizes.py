#!/usr/bin/python3
"""The longest functions and experiment drivers, and the limits the tree keeps.

Usage: scripts/code_sizes.py [ROOT] [--top N]      the N longest functions (default 20) and the longest drivers
       scripts/code_sizes.py ROOT --check           exit 1 when a limit is broken (what breaks it, one line each)
       scripts/code_sizes.py --self-test            the check's power case: planted long code must fail it

Limits (docs/contributing.md#size-limits): no function in src/ or experiments/ longer than 80 lines, no driver
(experiments/*.cpp) longer than 300. A function's length counts its lines from the one holding its opening brace to
the one holding its closing brace. Data tables (an initializer after '=') are not functions and are not counted.
KNOWN lists what is over a limit today, each with the length it may not exceed: the check fails when one grows, when
a new one appears, and when one listed has come under its limit (so the list only shrinks).
"""
import argparse
import os
import re
import sys
import tempfile

FUNCTION_LIMIT = 80
DRIVER_LIMIT = 300
SOURCE_DIRS = ("src", "experiments")
SUFFIXES = (".cpp", ".hpp", ".cu", ".cuh")

# "path:function" or "path" (a driver) -> the most lines it may have until it is cut below the limit.
KNOWN = {
}


def strip_code(text):
    """The text with comments, string and character literals emptied; newlines kept so line numbers stay."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        raw = re.match(r'R"([^(\s]*)\(', text[i:i + 20]) if text[i] == "R" else None
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            end = ")" + raw.group(1) + '"'
            j = text.find(end, i + len(raw.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
            continue
        c = text[i]
        # A quote opens a literal unless it is a digit separator (1'000'000).
        if c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def functions(text):
    """(name, first line, lines) of every function body not nested in another function."""
    code = strip_code(text)
    found, scopes = [], []  # scopes: (kind, line of the brace, what precedes it)
    line, head_start = 1, 0
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            head = " ".join(code[head_start:i].split())
            kind = "block"
            if not scopes or scopes[-1][0] in ("namespace", "class"):
                if re.search(r"\bnamespace\b", head) or head.startswith('extern ""'):
                    kind = "namespace"
                elif re.search(r"\b(struct|class|union|enum)\b[^()]*$", head):
                    kind = "class"
                elif "(" in head and not re.search(r"=\s*$", head) and not re.match(r"(if|for|while|switch)\b", head):
                    kind = "function"
                else:
                    kind = "table"
            scopes.append((kind, line, head))
            head_start = i + 1
        elif c == "}":
            if scopes:
                kind, first, head = scopes.pop()
                if kind == "function":
                    name = re.sub(r"\s*\(.*", "", head).split()
                    found.append((name[-1] if name else "?", first, line - first + 1))
            head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return found


def measure(root):
    """({"path:function": lines}, {"experiments/x.cpp": lines}) over the tree's sources (the longest of a name)."""
    lengths, drivers = {}, {}
    for folder in SOURCE_DIRS:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(SUFFIXES):
                    continue
                path = os.path.join(directory, name)
                relative = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for function, _, lines in functions(text):
                    key = relative + ":" + function
                    lengths[key] = max(lengths.get(key, 0), lines)
                if folder == "experiments" and name.endswith(".cpp"):
                    drivers[relative] = text.count("\n")
    return lengths, drivers


def problems(root, known):
    lengths, drivers = measure(root)
    out = []
    for sizes, limit, what in ((lengths, FUNCTION_LIMIT, "function"), (drivers, DRIVER_LIMIT, "driver")):
        for key, lines in sorted(sizes.items()):
            if key in known:
                if lines > known[key]:
                    out.append("%s: %d lines, grown past its listed %d (limit %d)" % (key, lines, known[key], limit))
                elif lines <= limit:
                    out.append("%s: %d lines, now within the limit %d: take it off KNOWN" % (key, lines, limit))
            elif lines > limit:
                out.append("%s: %d lines, over the %s limit %d" % (key, lines, what, limit))
    for key in sorted(set(known) - set(lengths) - set(drivers)):
        out.append("%s: listed in KNOWN but not found: take it off" % key)
    return out


def self_test():
    """Planted long code must fail the check and be named; the same tree without it must pass."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "x"))
        os.makedirs(os.path.join(root, "experiments"))
        body = "\n".join("  total += %d;  // {" % i for i in range(FUNCTION_LIMIT))
        table = "const int kTable[] = {\n" + "".join("  %d,\n" % i for i in range(200)) + "};\n"
        short = 'int short_one(int a) {\n  const char* s = "}";\n  return a;\n}\n'
        with open(os.path.join(root, "src", "x", "a.cpp"), "w") as f:
            f.write(table + short + "namespace n {\nint long_one(int total) {\n" + body + "\n  return total;\n}\n}\n")
        with open(os.path.join(root, "experiments", "d.cpp"), "w") as f:
            f.write("// a driver\n" * (DRIVER_LIMIT + 1))
        found = problems(root, {})
        want = ["src/x/a.cpp:long_one: 83 lines, over the function limit 80",
                "experiments/d.cpp: 301 lines, over the driver limit 300"]
        if found != want:
            print("FAIL: the planted long function and driver were not reported as expected:", found)
            return 1
        if problems(root, {"experiments/d.cpp": 301, "src/x/a.cpp:long_one": 83}):
            print("FAIL: listed lengths were reported")
            return 1
        if not problems(root, {"experiments/d.cpp": 300, "src/x/a.cpp:long_one": 83}):
            print("FAIL: a listed driver that grew passed")
            return 1
        if not problems(root, {"experiments/d.cpp": 301, "src/x/a.cpp:long_one": 83, "src/x/a.cpp:short_one": 90}):
            print("FAIL: a listed function within the limit passed")
            return 1
    print("ok: planted long code is reported, a grown listed one too, and the list cannot keep what was cut")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description="The longest functions and drivers, and the limits the tree keeps.")
    parser.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--check", action="store_true", help="exit 1 when a limit is broken")
    parser.add_argument("--self-test", action="store_true", help="planted long code must fail the check")
    parser.add_argument("--top", type=int, default=20, help="how many of each to list (default 20)")
    args = parser.parse_args(argv)
    if args.self_test:
        return self_test()
    if not os.path.isdir(os.path.join(args.root, "src")):
        print("scripts/code_sizes.py: %s is not a favorlab checkout (no src/)" % args.root, file=sys.stderr)
        return 2
    if args.check:
        found = problems(args.root, KNOWN)
        for line in found:
            print(line)
        if not found:
            print("ok: no function over %d lines, no driver over %d, beyond the %d listed in KNOWN"
                  % (FUNCTION_LIMIT, DRIVER_LIMIT, len(KNOWN)))
        return 1 if found else 0
    lengths, drivers = measure(args.root)
    print("longest functions (limit %d):" % FUNCTION_LIMIT)
    for key, lines in sorted(lengths.items(), key=lambda kv: -kv[1])[:args.top]:
        print("  %4d  %s" % (lines, key))
    print("longest drivers (limit %d):" % DRIVER_LIMIT)
    for key, lines in sorted(drivers.items(), key=lambda kv: -kv[1])[:args.top]:
        print("  %4d  %s" % (lines, key))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
