"""What the suites' command lines share: choosing cases by parts of their
names, and running cases with one PASS or FAIL line each."""

import concurrent.futures


def add_selection_arguments(parser):
    """--only and --skip, each comma-separated parts of case names."""
    parser.add_argument("--only", default="",
                        help="run only the cases whose name has one of "
                        "these comma-separated parts")
    parser.add_argument("--skip", default="",
                        help="leave out the cases whose name has one of "
                        "these comma-separated parts")


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
