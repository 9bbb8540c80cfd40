#!/usr/bin/env python3
"""Runs every command the documentation shows, exactly as written.

Each fenced ``sh`` block of README.md, docs/*.md and python/**/*.md runs in
bash (errexit, pipefail) in a scratch directory that links the repository's
directories, so relative paths work as they do from the repository root and
the files a command writes land in the scratch directory. Blocks of one
document share their directory, in order, as a reader running them would.

An HTML comment right before a block says what else the text claims or why
the block does not run here:

    <!-- docs-test: expect-files gemm.spv out/gemm.metal.metal -->
    <!-- docs-test: expect-output check gemm 256x128x256 (C = argument 2, f32): PASSED -->
    <!-- docs-test: gpu -->          (needs the GPU: the device scripts run it)
    <!-- docs-test: skip REASON -->  (never runs here, for the reason given)

A block whose lines start with "$ " is a transcript: those lines are the
commands, and the lines after each are its output, matched line by line
with "..." standing for any text.

Prints one line per block and a summary; exits 1 if any block failed.

The GPU-only blocks run on the GPU machine in two steps (test/Docs/device.sh):
here, `--scratch DIR` keeps the directories with what the other blocks
wrote (the binaries the GPU blocks run); there, `--gpu --scratch DIR` runs
the GPU blocks alone in them, with `--build` holding the runner.
"""

import argparse
import os
import pathlib
import re
import subprocess
import sys
import tempfile

DIRECTIVE = re.compile(r"<!--\s*docs-test:\s*(\S+)\s*(.*?)\s*-->")
LINKED = [".deps", "bench", "build", "data", "docs", "examples", "include",
          "lib", "python", "test", "tools", "utils"]


class Block:
    def __init__(self, document, line, text, directives):
        self.document = document
        self.line = line
        self.text = text
        self.directives = directives

    def name(self):
        return "%s:%d" % (self.document, self.line)

    def directive(self, kind):
        return [value for key, value in self.directives if key == kind]


def read_blocks(root, document):
    """The sh blocks of a document with the directives right before each."""
    lines = (root / document).read_text().splitlines()
    blocks, directives, index = [], [], 0
    while index < len(lines):
        line = lines[index]
        match = DIRECTIVE.search(line)
        if match:
            directives.append((match.group(1), match.group(2)))
        elif line.strip() == "```sh":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            blocks.append(Block(document, start, "\n".join(lines[start:end]),
                                directives))
            directives, index = [], end
        elif line.strip():
            directives = []
        index += 1
    return blocks


def transcript_steps(text):
    """(command, expected output lines) for each "$ " line of a transcript."""
    steps = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps:
            steps[-1][1].append(line)
    return steps


def matches(expected, actual):
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual) is not None


def run_block(block, directory, environment, timeout):
    """Runs a block; returns an error message, or None when it passed."""
    steps = transcript_steps(block.text)
    if not steps:
        steps = [(block.text, None)]
    output = ""
    for command, expected in steps:
        try:
            result = subprocess.run(
                ["bash", "-e", "-o", "pipefail", "-c", command],
                cwd=directory, env=environment, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, text=True, errors="replace",
                timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timed out after %d s: %s" % (timeout, command)
        output += result.stdout
        if result.returncode != 0:
            tail = "\n".join(result.stdout.splitlines()[-15:])
            return "exit status %d\n%s" % (result.returncode, tail)
        if expected is not None:
            actual = result.stdout.splitlines()
            if len(actual) != len(expected) or not all(
                    matches(e, a) for e, a in zip(expected, actual)):
                return ("the output differs from the text:\n  expected:\n    "
                        + "\n    ".join(expected) + "\n  got:\n    "
                        + "\n    ".join(actual))
    for files in block.directive("expect-files"):
        for name in files.split():
            path = directory / name
            if not path.is_file() or path.stat().st_size == 0:
                return "the text says it writes %s, which is missing or empty" % name
    for text in block.directive("expect-output"):
        if text not in output:
            return ("the text says the output holds '%s'; it does not:\n%s"
                    % (text, "\n".join(output.splitlines()[-15:])))
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, type=pathlib.Path)
    parser.add_argument("--build", type=pathlib.Path,
                        help="the build directory the text's build/ means "
                             "(default: ROOT/build)")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--scratch", type=pathlib.Path,
                        help="keep the documents' directories here")
    parser.add_argument("--gpu", action="store_true",
                        help="run only the GPU-only blocks, in the "
                             "directories a --scratch run left")
    parser.add_argument("documents", nargs="*",
                        help="documents relative to the root (default: all)")
    args = parser.parse_args()
    root = args.root.resolve()
    documents = args.documents or (
        ["README.md"]
        + sorted(str(p.relative_to(root)) for p in (root / "docs").glob("*.md"))
        + sorted(str(p.relative_to(root)) for p in (root / "python").rglob("*.md")))

    environment = dict(os.environ)
    environment.pop("SM_CAPI_LIBRARY", None)
    environment["PYTHONPATH"] = str(root / "python")
    # The blocks run in a scratch folder that links to the checkout: bytecode
    # (pytest's rewritten test modules among it) written from there into the
    # checkout's __pycache__ would name the scratch folder's paths, and a
    # later run of the same tests would report failures at files that are
    # gone.
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    counts = {"passed": 0, "failed": 0, "gpu": 0, "skipped": 0}
    temporary = None
    if args.scratch:
        scratch = args.scratch.resolve()
        scratch.mkdir(parents=True, exist_ok=True)
    else:
        temporary = tempfile.TemporaryDirectory(prefix="sm-docs-")
        scratch = pathlib.Path(temporary.name)
    for document in documents:
        blocks = read_blocks(root, document)
        if not blocks:
            continue
        directory = scratch / document.replace("/", "_")
        directory.mkdir(exist_ok=args.gpu or bool(args.scratch))
        for name in LINKED:
            target = root / name
            if name == "build" and args.build:
                target = args.build.resolve()
            link = directory / name
            if link.is_symlink():
                link.unlink()
            if target.exists():
                link.symlink_to(target)
        for block in blocks:
            is_gpu = bool(block.directive("gpu"))
            reasons = block.directive("skip")
            if is_gpu != args.gpu:
                if is_gpu:
                    counts["gpu"] += 1
                    print("GPU-ONLY %s (run by test/Docs/device.sh)"
                          % block.name())
                continue
            if reasons:
                counts["skipped"] += 1
                print("SKIPPED %s: %s" % (block.name(), reasons[0]))
                continue
            error = run_block(block, directory, environment, args.timeout)
            if error:
                counts["failed"] += 1
                print("FAILED %s: %s" % (block.name(), error))
            else:
                counts["passed"] += 1
                print("PASSED %s" % block.name())
            sys.stdout.flush()
    if temporary:
        temporary.cleanup()
    print("documented commands: %(passed)d passed, %(failed)d failed, "
          "%(gpu)d GPU-only, %(skipped)d skipped" % counts)
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
