#!/usr/bin/env python3
"""The command lines refuse bad arguments the way common/library/README.md promises: exit code 2 and a
message that says what is wrong, before anything touches a GPU (so on any machine, GPU or
not). A crash, a hang or another exit code fails, and so does a message that does not say
what to fix.

    test_cli_errors.py <step-6 executable> <step-1 executable> <ladder-plan executable>
                       <ladder-layout executable>
"""
import re
import subprocess
import sys

step6, step1, plan, layout = sys.argv[1:5]
failures = []


def expect(command, code, pattern, stream="stderr"):
    """Runs command (a list) and checks its exit code and that `pattern` is in its output."""
    try:
        done = subprocess.run(command, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        failures.append(f"{command}: hung")
        print(f"FAIL {command}: hung")
        return
    text = (done.stderr if stream == "stderr" else done.stdout).decode("utf-8", "replace")
    ok = done.returncode == code and re.search(pattern, text) is not None
    # Every byte of a message is printable: user input is escaped, not echoed raw.
    printable = all(32 <= b < 127 or b in (9, 10) for b in done.stderr)
    ok = ok and printable
    print(("ok   " if ok else "FAIL ") + f"{command[1:]!r}: exit {done.returncode}, {text.strip()[:160]!r}")
    if not ok:
        failures.append(f"{command[1:]!r}: want exit {code} and /{pattern}/ (printable: {printable}), "
                        f"got exit {done.returncode}: {text!r}")


# (executable, arguments, what the message must say): each must exit with 2.
bad_args = [(step6, args, pattern) for args, pattern in [
    (["--k", "7"], r"--k must be a multiple of 8"),
    (["--sizes", "64x64x12"], r"bad size '64x64x12'.*multiple of 8"),
    (["--m", "2147418113"], r"--m must be a whole number from 1 to 2147418112"),
    (["--m", "0"], r"--m must be a whole number"),
    (["--runs", "5"], r"--runs must be from 20"),
    (["--runs", "1000000"], r"--runs must be from 20 .* to 100000"),
    (["--seed", " -1"], r"--seed must be a whole number .*' -1'"),
    (["--seed", "-1"], r"--seed must be a whole number"),
    (["--seed", "+7"], r"--seed must be a whole number"),
    (["--reference", "cpu", "--m", "2000000000", "--n", "2000000000", "--k", "8"],
     r"--reference cpu is for small shapes"),
    (["--reference", "gpu"], r"--reference must be cublas or cpu"),
    (["--variant", "foo"], r"no variant 'foo' \(variants of step 6: cooperative \(default\), pingpong\)"),
    (["--variant", b"\xff\xfe".decode("latin-1")], r"no variant '\\xff\\xfe'"),
    (["--csv", "/nonexistent-directory/bench.csv"], r"--csv: cannot open '/nonexistent-directory/bench.csv'"),
    (["--frobnicate"], r"unknown argument '--frobnicate'"),
]] + [(step1, ["--variant", "pingpong"], r"no variant 'pingpong' \(variants of step 1: only the default\)")]
expect([step6, "--help"], 0, r"Variants of step 6 \(--variant\): cooperative \(default\), pingpong", "stdout")
expect([step1, "--help"], 0, r"Variants of step 1 \(--variant\): only the default", "stdout")

bad_args += [(plan, args, pattern) for args, pattern in [
    (["--m", "zero"], r"--m must be a whole number .*'zero'"),
    # The step executables' rules (common/library/arg_parse.h): digits only, user input escaped.
    (["--m", "\t5"], r"--m must be a whole number .*'\\x095'"),
    (["--top", b"\xff".decode("latin-1")], r"--top must be a whole number .*'\\xff'"),
    (["--\x1b[31m"], r"unknown argument '--\\x1b\[31m'"),
    (["--l2-tbps", "1e-300"], r"--l2-tbps must be a number from 0.01 to 1000"),
    (["--latency-ns", "1e300"], r"--latency-ns must be a number from 1 to 1e\+06"),
    (["--candidate", "100x256x64:4:2:1"], r"--candidate '100x256x64:4:2:1': BM=100 is not a multiple of 128"),
    (["--candidate", "128x256x40"], r"--candidate '128x256x40': wgmma consumes bf16 K in steps of 16"),
]]
bad_args += [(layout, args, pattern) for args, pattern in [
    (["--cluster", "3"], r"--cluster must divide the 256-row B box: 1, 2 or 4"),
    (["--only", "colours"], r"--only"),
]]
for executable, args, pattern in bad_args:
    # Raw bytes: a str argument would be re-encoded as UTF-8.
    expect([executable] + [a.encode("latin-1") for a in args], 2, pattern)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
