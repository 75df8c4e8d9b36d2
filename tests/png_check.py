"""Shared by the plot tests: a file the plot scripts wrote must be a real, non-trivial PNG."""
import os
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
