"""What the suites' command lines share: choosing cases by parts of their
names, and running cases with one PASS or FAIL line each."""

import concurrent.futures

# How a generated suite's kernels are built and run: Vulkan SPIR-V on a
# Vulkan device, the Intel form on the Intel host runner, Metal on the MSL
# host runner.
PATHS = ("vulkan", "intel", "msl")


def add_selection_arguments(parser):
    """--only and --skip, each comma-separated parts of case names."""
    for flag, verb in (("--only", "run only"), ("--skip", "leave out")):
        parser.add_argument(flag, default="", help="%s the cases whose name "
                            "has one of these comma-separated parts" % verb)


def is_selected(name, only="", skip=""):
    """Whether --only and --skip keep case `name`."""
    wanted = [part for part in only.split(",") if part]
    unwanted = [part for part in skip.split(",") if part]
    return (not wanted or any(part in name for part in wanted)) and \
        not any(part in name for part in unwanted)


def run_and_report(cases, check, jobs, summary, outcome="passed"):
    """Runs `check(case)` -> (ok, detail) for each case, `jobs` at a time,
    printing "PASS name: detail" or "FAIL ..." in the cases' order, then
    "SUMMARY: N passed, N failed" (`outcome` names what passing did);
    returns the exit status."""
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for case, (ok, detail) in zip(cases, pool.map(check, cases)):
            print("%s %s: %s" % ("PASS" if ok else "FAIL", case.name, detail),
                  flush=True)
            passed += ok
            failed += not ok
    print("%s: %d %s, %d failed" % (summary, passed, outcome, failed))
    return 0 if failed == 0 else 1


def add_suite_commands(parser, targets):
    """The commands of a generated suite: `generate TARGET OUT`, and
    `build` and `run` of PATH OUT TOOLS [--spirv-val X] [--only, --skip];
    returns the subparsers and those three commands, for the suite's own
    commands and options."""
    commands = parser.add_subparsers(dest="command", required=True)
    generate = commands.add_parser("generate")
    generate.add_argument("target", choices=sorted(targets))
    generate.add_argument("out")
    built = []
    for name in ("build", "run"):
        command = commands.add_parser(name)
        command.add_argument("path", choices=PATHS)
        command.add_argument("out")
        command.add_argument("tools")
        command.add_argument("--spirv-val", default="")
        add_selection_arguments(command)
        built.append(command)
    return commands, generate, built[0], built[1]
