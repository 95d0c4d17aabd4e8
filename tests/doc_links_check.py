#!/usr/bin/env python3
"""Dead-reference check for Markdown documents.

Usage: doc_links_check.py ROOT        check the repository at ROOT (exit 1 if any reference is dead)
       doc_links_check.py --self-test run the checker on a small generated tree (power case)

A reference is a Markdown link in a Markdown file ([text](PATH#anchor) with PATH ending in .md, relative to that
file; [text](#anchor) for the file itself) or a plain mention of a repository path ending in .md with an optional #anchor (relative to the
repository root, or to the mentioning file's folder), in any text file the check reads. It is dead when the file
does not exist or the anchor is not one of the target's heading slugs (GitHub rules) or explicit <a id/name> anchors.
Mentions of the two external design documents the code once cited are always dead: they are not in the repository.
Python 3, standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

# Names are assembled from parts so that this file does not itself contain the references it looks for.
MD = "." + "md"
EXTERNAL_DOCS = {"MATH" + MD, "DESIGN" + MD}

TEXT_SUFFIXES = (".md", ".cpp", ".hpp", ".cu", ".cuh", ".py", ".sh", ".txt", ".cmake")
JSON_DIRS = ("scripts/", "tests/")

URL_RE = re.compile(r"https?://[^\s)\]>\"'`]+")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
# A path ending in .md, not preceded by a path character (so the match starts at the path's beginning).
MENTION_RE = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)(?![\w/])(#[\w-]+)?")
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ANCHOR_TAG_RE = re.compile(r"<a\s[^>]*?\b(?:id|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE)


def list_files(root):
    """Tracked and untracked-but-not-ignored files, relative to root, with '/' separators."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True).stdout
        files = [f for f in out.decode("utf-8", "surrogateescape").split("\0") if f]
        return sorted(set(f for f in files if os.path.isfile(os.path.join(root, f))))
    except (OSError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(root):
            rel_dir = os.path.relpath(dirpath, root)
            if rel_dir == ".":
                dirnames[:] = [d for d in dirnames if d not in (".git", "build")]
            dirnames.sort()
            for name in filenames:
                rel = os.path.normpath(os.path.join(rel_dir, name)).replace(os.sep, "/")
                files.append(rel)
        return sorted(files)


def is_checked(rel):
    name = rel.rsplit("/", 1)[-1]
    if name == "CMakeLists.txt" or rel.endswith(TEXT_SUFFIXES):
        return True
    return rel.endswith(".json") and rel.startswith(JSON_DIRS)


def read_text(path):
    """The file's text, or None for a binary or undecodable file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return None
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def github_slug(text):
    """GitHub's anchor for a heading: lowercase, punctuation other than '-' and '_' removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "")
    text = text.strip().lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in "-_" or ch == " " or cat[0] in ("L", "N", "M"):
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def fence_states(lines):
    """Yields (line, inside a fenced code block) for each line; a fence's own lines count as inside."""
    fence = None
    for line in lines:
        m = FENCE_RE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker[0] * 3
            elif marker.startswith(fence):
                fence = None
            yield line, True
            continue
        yield line, fence is not None


def anchors_of(text):
    """Heading slugs (with GitHub's -1, -2 suffixes for repeats) and explicit <a id/name> anchors."""
    anchors, counts = set(), {}
    lines = text.split("\n")
    for i, (line, fenced) in enumerate(fence_states(lines)):
        if fenced:
            continue
        for tag in ANCHOR_TAG_RE.finditer(line):
            anchors.add(next(g for g in tag.groups() if g is not None))
        heading = None
        m = HEADING_RE.match(line)
        if m:
            heading = re.sub(r"[ \t]+#+$", "", m.group(2) or "")
        elif (i + 1 < len(lines) and line.strip() and not line.lstrip().startswith(("|", "-", "*", ">"))
              and re.fullmatch(r" {0,3}(=+|-+)[ \t]*", lines[i + 1])):
            heading = line.strip()
        if heading is not None:
            slug = github_slug(heading)
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            anchors.add(slug if n == 0 else "%s-%d" % (slug, n))
    return anchors


class Checker:
    def __init__(self, root, files):
        self.root = root
        self.files = set(files)
        self.anchor_cache = {}
        self.checked = 0
        self.dead = []

    def anchors(self, rel):
        if rel not in self.anchor_cache:
            self.anchor_cache[rel] = anchors_of(read_text(os.path.join(self.root, rel)) or "")
        return self.anchor_cache[rel]

    def exists(self, rel):
        return rel in self.files or os.path.isfile(os.path.join(self.root, rel))

    def resolve(self, path, bases):
        """The first existing normalized path among path joined to each base folder, else None."""
        for base in bases:
            rel = os.path.normpath(os.path.join(base, path)).replace(os.sep, "/")
            if rel.startswith("../") or rel == "..":
                continue
            if self.exists(rel):
                return rel
        return None

    def check(self, source, lineno, ref, path, anchor, bases):
        self.checked += 1
        name = path.rsplit("/", 1)[-1]
        if name in EXTERNAL_DOCS:
            why = "external document, not in the repository"
        else:
            target = self.resolve(path, bases) if path else source
            if target is None:
                why = "no such file"
            elif anchor and anchor not in self.anchors(target):
                why = "no heading or anchor '%s' in %s" % (anchor, target)
            else:
                return
        self.dead.append("%s:%d: dead reference '%s' (%s)" % (source, lineno, ref, why))

    def scan(self, rel):
        text = read_text(os.path.join(self.root, rel))
        if text is None:
            return
        folder = os.path.dirname(rel)
        is_md = rel.endswith(".md")
        for lineno, (line, fenced) in enumerate(fence_states(text.split("\n")), 1):
            line = URL_RE.sub(lambda u: " " * len(u.group(0)), line)
            if is_md and not fenced:
                def link(m):
                    target = m.group(1)
                    if not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                        path, _, anchor = target.partition("#")
                        if path.endswith(".md") or (not path and anchor):
                            self.check(rel, lineno, target, path, anchor, [folder])
                    return " " * len(m.group(0))
                line = LINK_RE.sub(link, line)
            for m in MENTION_RE.finditer(line):
                path, anchor = m.group(1), (m.group(2) or "")[1:]
                # A plain mention is a reference when its first folder (or the name itself) is in the repository's
                # root or beside the file; other names ("$dir/CLAIMS.md", "claims.md") are files a program writes.
                first = path.split("/", 1)[0]
                named = path.rsplit("/", 1)[-1] in EXTERNAL_DOCS
                if not named and not any(os.path.exists(os.path.join(self.root, base, first)) for base in ("", folder)):
                    continue
                self.check(rel, lineno, m.group(0), path, anchor, ["", folder])


def run(root):
    files = list_files(root)
    checker = Checker(root, files)
    for rel in files:
        if is_checked(rel):
            checker.scan(rel)
    return checker


def self_test():
    """Power case: one good link and three dead references; exactly the three must be reported."""
    external = sorted(EXTERNAL_DOCS)[1]
    guide, other = "docs/guide" + MD, "other" + MD
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        os.makedirs(os.path.join(root, "src"))
        with open(os.path.join(root, guide), "w", encoding="utf-8") as f:
            f.write("# Guide\n\n## Heavy tails (Lemma 2)\n\nSee [the other page](%s).\n" % other)
        with open(os.path.join(root, "src", "a.hpp"), "w", encoding="utf-8") as f:
            f.write("// Good: %s#heavy-tails-lemma-2\n" % guide
                    + "// Dead anchor: %s#no-such-heading\n" % guide
                    + "// External: %s, \"Notation\"\n" % external
                    + "// A URL is ignored: https://example.org/x%s#y\n" % MD)
        with open(os.path.join(root, "results.json"), "w", encoding="utf-8") as f:
            f.write('{"note": "not read: docs/missing%s"}\n' % MD)
        checker = run(root)
    expected = [
        (guide + ":5:", "'%s'" % other, "no such file"),
        ("src/a.hpp:2:", "'%s#no-such-heading'" % guide, "no heading"),
        ("src/a.hpp:3:", "'%s'" % external, "external document"),
    ]
    ok = checker.checked == 4 and len(checker.dead) == len(expected) and all(
        d.startswith(loc) and ref in d and why in d for d, (loc, ref, why) in zip(sorted(checker.dead), expected))
    for d in checker.dead:
        print("  reported: " + d)
    if not ok:
        print("doc links self-test FAILED: expected exactly %d dead references among 4 checked, got %d of %d"
              % (len(expected), len(checker.dead), checker.checked))
        return 1
    print("doc links self-test: the 3 dead references were reported and the good one was not")
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print("usage: doc_links_check.py ROOT | --self-test", file=sys.stderr)
        return 2
    root = argv[1]
    if not os.path.isdir(root):
        print("doc_links_check.py: not a directory: %s" % root, file=sys.stderr)
        return 2
    checker = run(root)
    for d in checker.dead:
        print(d)
    if checker.dead:
        print("doc links: %d of %d references dead" % (len(checker.dead), checker.checked))
        return 1
    print("doc links: %d references checked, all resolve" % checker.checked)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
