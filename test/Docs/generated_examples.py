#!/usr/bin/env python3
"""Runs every MLIR example of the generated references (docs/generated).

The examples are written in the .td files, so this is how the op, type,
attribute and pass descriptions stay true. Each fenced ``mlir`` block is one
of:

- a program whose first line names the command that runs it,
  ``// sm-opt FLAGS``: the program is that command's input and must be
  accepted. Lines ``// error: TEXT`` (continued on the comment lines right
  after) say that the command reports TEXT at the next line of code; such a
  program runs with -verify-diagnostics. A trailing "..." in TEXT stands for
  the rest of the message.
- the same, split by a line ``// becomes`` (any words may follow): the lines
  after it show what the command makes of the program. Each statement of
  that part must match a line of the output, in order; "..." stands for any
  text, a "{ ... }" at the end of a statement for a region, and SSA names
  (%x, ^bb0's arguments) for whatever name the printer chose, the same one
  wherever the example repeats a name.
- ``// sm-opt FLAGS FILE`` with FILE a path in the repository: the block
  shows what the command makes of FILE, matched as above.
- a program without a command line: it must parse and verify (sm-opt with
  no passes).
- a type or an attribute alone (the block starts with "!" or "#"; one per
  line, "//" comments allowed): each must parse.

Prints one line per example and a summary; exits 1 if any failed.
"""

import argparse
import pathlib
import re
import shlex
import subprocess
import sys

BLOCK = re.compile(r"^```mlir\n(.*?)^```", re.M | re.S)
COMMAND = re.compile(r"^//\s*(sm-opt|sm-translate)\s+(.*)$")
BECOMES = re.compile(r"^\s*//\s*becomes\b")
ERROR = re.compile(r"^(\s*)//\s*(error|warning|note):\s*(.*)$")
NEW_STATEMENT = re.compile(r"^(%[\w.$#:, %-]* = |\^|\}|[a-z_]+\.[a-z_.]+\b)")
CONTINUED = re.compile(r"^\s*//\s+(\S.*)$")
SSA = re.compile(r"[%^][A-Za-z_][\w$.]*")


class Failure(Exception):
    pass


def statements(text):
    """Code lines joined with their continuation lines, comments dropped.

    A line continues the statement above it when it is indented further than
    the statement's first line and that statement does not open a region."""
    result, indents = [], []
    for line in text.splitlines():
        code = re.sub(r"\s*//.*$", "", line)
        if not code.strip():
            continue
        indent = len(code) - len(code.lstrip())
        if result and indent > indents[-1] \
                and not result[-1].endswith(("{", ":")) \
                and not NEW_STATEMENT.match(code.strip()):
            result[-1] += " " + code.strip()
        else:
            result.append(code.strip())
            indents.append(indent)
    return result


def statement_pattern(statement, bound):
    """A regular expression for one statement of an expected output.

    Returns the pattern and the SSA names it captures, in order."""
    statement = re.sub(r"\{\s*\.\.\.\s*\}$", "{", statement)
    parts, names, position = [], [], 0
    tokens = re.finditer(r"\.\.\.|[%^][A-Za-z_][\w$.]*|\s+", statement)
    for token in tokens:
        parts.append(re.escape(statement[position:token.start()]))
        text = token.group(0)
        if text == "...":
            parts.append(".*?")
        elif text.isspace():
            parts.append(r"\s*")
        elif text in bound:
            parts.append(re.escape(bound[text]))
        elif text in names:
            parts.append("(?P=g%d)" % names.index(text))
        else:
            parts.append(r"(?P<g%d>%s[\w$.#-]+)" % (len(names), re.escape(
                text[0])))
            names.append(text)
        position = token.end()
    parts.append(re.escape(statement[position:]))
    return "".join(parts), names


def match_output(expected, output):
    """Finds each expected statement on a line of `output`, in order."""
    lines = output.splitlines()
    bound, index = {}, 0
    for statement in statements(expected):
        if statement == "}":
            continue
        pattern, names = statement_pattern(statement, bound)
        regex = re.compile(pattern)
        while index < len(lines):
            found = regex.search(lines[index])
            index += 1
            if found:
                for number, name in enumerate(names):
                    bound[name] = found.group("g%d" % number)
                break
        else:
            raise Failure("no line of the output matches:\n    %s" %
                          statement)


def with_expected_errors(program):
    """Turns `// error: TEXT` (warning, note) comments into expected-error
    (-warning, -note) lines."""
    lines = program.splitlines()
    result, pending, index = [], [], 0
    while index < len(lines):
        found = ERROR.match(lines[index])
        if found:
            kind, message = found.group(2), [found.group(3)]
            index += 1
            while index < len(lines) and CONTINUED.match(lines[index]) \
                    and not ERROR.match(lines[index]):
                message.append(CONTINUED.match(lines[index]).group(1))
                index += 1
            pending.append((kind, re.sub(r"\s*\.\.\.$", "", " ".join(message))))
            continue
        if pending and re.sub(r"//.*$", "", lines[index]).strip():
            # Each expected-error line points past the ones after it to the
            # code line the comment stood before.
            for number, (kind, text) in enumerate(pending):
                result.append("// expected-%s@+%d {{%s}}" %
                              (kind, len(pending) - number, text))
            pending = []
        result.append(lines[index])
        index += 1
    if pending:
        raise Failure("an '// error:' or '// note:' comment is not followed "
                      "by code")
    return "\n".join(result) + "\n"


def run(tools, tool, arguments, program, cwd):
    command = [str(tools / tool)] + arguments
    done = subprocess.run(command, input=program, capture_output=True,
                          text=True, cwd=cwd)
    if done.returncode != 0:
        raise Failure("%s exited %d:\n%s" %
                      (" ".join(command), done.returncode,
                       done.stderr.strip()[-3000:]))
    return done.stdout


def check_type_or_attribute(tools, text, root):
    for code in statements(text):
        if code.startswith("!"):
            program = "func.func private @example(%s)\n" % code
        else:
            program = "module attributes {doc.example = %s} {}\n" % code
        run(tools, "sm-opt", [], program, root)


def check_example(tools, root, text):
    lines = text.splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("!") or first.startswith("#"):
        check_type_or_attribute(tools, text, root)
        return "parses"
    command = COMMAND.match(first)
    if not command:
        run(tools, "sm-opt", [], text, root)
        return "parses and verifies"
    tool, arguments = command.group(1), shlex.split(command.group(2))
    files = [a for a in arguments
             if not a.startswith("-") and (root / a).is_file()]
    if files:
        output = run(tools, tool, arguments, "", root)
        match_output("\n".join(lines[1:]), output)
        return "output of %s %s matches" % (tool, " ".join(arguments))
    cut = next((i for i, line in enumerate(lines) if BECOMES.match(line)),
               None)
    program = "\n".join(lines[:cut] if cut is not None else lines) + "\n"
    if "..." in re.sub(r"//.*", "", program):
        raise Failure("the input program elides code with '...'")
    if ERROR.search(program) or any(ERROR.match(l) for l in lines):
        arguments = arguments + ["-verify-diagnostics"]
        run(tools, tool, arguments, with_expected_errors(program), root)
        return "%s %s reports the errors shown" % (tool, " ".join(arguments))
    output = run(tools, tool, arguments, program, root)
    if cut is None:
        return "%s %s accepts it" % (tool, " ".join(arguments))
    match_output("\n".join(lines[cut + 1:]), output)
    return "%s %s makes what is shown" % (tool, " ".join(arguments))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, type=pathlib.Path)
    parser.add_argument("--tools", required=True, type=pathlib.Path)
    options = parser.parse_args()
    options.tools = options.tools.resolve()
    passed = failed = 0
    for document in sorted((options.root / "docs/generated").glob("*.md")):
        content = document.read_text()
        for block in BLOCK.finditer(content):
            line = content.count("\n", 0, block.start()) + 1
            # The generated Markdown keeps the .td's indentation relative to
            # the description; remove what all lines share.
            text = block.group(1)
            name = "%s:%d" % (document.relative_to(options.root), line)
            try:
                how = check_example(options.tools, options.root, text)
                print("PASSED %s: %s" % (name, how))
                passed += 1
            except Failure as failure:
                print("FAILED %s: %s" % (name, failure))
                failed += 1
    print("generated examples: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
