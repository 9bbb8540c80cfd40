#!/usr/bin/env python3
"""Installs the Python package's record of its prefix and writes a wheel of
it (run by `cmake --install`, cmake/SubgroupMatrixInstall.cmake).

The installed package gets `_installed.py`: where the prefix's library and
tools are, relative to the package (so that a moved prefix still works)
and as the absolute prefix it was installed into (which a copy made by
`pip install` of the wheel relies on). The wheel (pure Python: the package
loads the prefix's libSubgroupMatrixCAPI.so with ctypes) is a zip file in
the format of PEP 427, written with the standard library alone.
"""

import argparse
import base64
import hashlib
import os
import zipfile

INSTALLED = '''"""Written by `cmake --install`: the prefix this package belongs to."""
PREFIX = {prefix!r}
PREFIX_FROM_PACKAGE = {relative!r}
LIBDIR = {libdir!r}
BINDIR = {bindir!r}
'''


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return "%s,sha256=%s,%d" % (name, digest.rstrip(b"=").decode(), len(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--package", required=True,
                        help="the package's source folder")
    parser.add_argument("--installed-package", required=True,
                        help="where the install put the package")
    parser.add_argument("--prefix", required=True,
                        help="the install prefix, as the tools will see it")
    parser.add_argument("--staged-prefix", required=True,
                        help="where that prefix is while installing "
                        "(DESTDIR included)")
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("--bindir", default="bin")
    parser.add_argument("--version", required=True)
    parser.add_argument("--output-dir", required=True)
    args = parser.parse_args()

    relative = os.path.relpath(args.staged_prefix, args.installed_package)
    installed = INSTALLED.format(prefix=args.prefix, relative=relative,
                                 libdir=args.libdir, bindir=args.bindir)
    with open(os.path.join(args.installed_package, "_installed.py"),
              "w") as out:
        out.write(installed)

    name, version = "subgroup_matrix", args.version
    dist_info = "%s-%s.dist-info" % (name, version)
    files = {}
    for entry in sorted(os.listdir(args.package)):
        if entry.endswith(".py"):
            with open(os.path.join(args.package, entry), "rb") as source:
                files["%s/%s" % (name, entry)] = source.read()
    # The copy pip makes is not in the prefix: only the absolute path holds.
    files["%s/_installed.py" % name] = INSTALLED.format(
        prefix=args.prefix, relative=args.prefix, libdir=args.libdir,
        bindir=args.bindir).encode()
    files[dist_info + "/METADATA"] = (
        "Metadata-Version: 2.1\nName: %s\nVersion: %s\n"
        "Summary: Build, compile and run subgroup-matrix kernels and linalg "
        "programs through the subgroup_matrix C API\n"
        "Requires-Python: >=3.9\n" % (name, version)).encode()
    files[dist_info + "/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: subgroup-matrix make-wheel.py\n"
        "Root-Is-Purelib: true\nTag: py3-none-any\n").encode()
    files[dist_info + "/top_level.txt"] = (name + "\n").encode()
    record = [record_line(path, data) for path, data in files.items()]
    record.append(dist_info + "/RECORD,,")
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()

    os.makedirs(args.output_dir, exist_ok=True)
    wheel = os.path.join(args.output_dir,
                         "%s-%s-py3-none-any.whl" % (name, version))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    print("-- Installing: %s" % wheel)


if __name__ == "__main__":
    main()
