"""Shared by the plot tests: a file the plot scripts wrote must be a real, non-trivial PNG; a
plot script without matplotlib stops with one line; the tests skip (exit 77, CTest's
SKIP_RETURN_CODE) what needs matplotlib where it is not installed."""
import os
import subprocess
import sys

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def check_png(path):
    """Exit with FAIL unless `path` exists, starts with the PNG signature and has >= 10 kB."""
    if not os.path.exists(path):
        sys.exit(f"FAIL: {path} was not written")
    with open(path, "rb") as f:
        head = f.read(8)
    if head != PNG_SIGNATURE or os.path.getsize(path) < 10_000:
        sys.exit(f"FAIL: {path} is not a plausible PNG ({os.path.getsize(path)} bytes)")
    print(f"ok {os.path.basename(path)}: {os.path.getsize(path)} bytes")


def refused(run, words):
    """Exit with FAIL unless the finished `run` failed with one line on stderr holding `words`
    (no traceback)."""
    lines = run.stderr.strip().splitlines()
    if run.returncode == 0 or len(lines) != 1 or words not in lines[0]:
        sys.exit(f"FAIL: want exit != 0 and one line with {words!r}, got exit {run.returncode}: {run.stderr!r}")
    print(f"ok refused: {lines[0]}")


def refuses_without_matplotlib(script, *args):
    """Runs `script args` as if matplotlib were not installed (None in sys.modules makes its import
    fail) and checks that it stops with one line saying so."""
    code = ("import runpy, sys; sys.modules['matplotlib'] = None; "
            f"sys.path.insert(0, {os.path.dirname(os.path.abspath(script))!r}); sys.argv = {[script, *args]!r}; "
            f"runpy.run_path({script!r}, run_name='__main__')")
    refused(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True), "needs matplotlib")


def skip_without_matplotlib(what):
    """Exit 77 (skipped) with the reason when matplotlib cannot be imported: `what` needs it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print(f"SKIP: {what} needs matplotlib, which {sys.executable} cannot import "
              "(pip install matplotlib); the checks that need none passed")
        sys.exit(77)
