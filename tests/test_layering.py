#!/usr/bin/env python3
"""The include floors: common/kernel and common/library include no step; a step includes only
earlier steps and those two floors; the harness, the models and the tests may include any step.
Every quoted #include is resolved to the folder that holds the header, and one that runs the
wrong way fails with the file, the line and the rule it breaks."""
import pathlib
import re
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FLOORS = ("common/kernel", "common/library")
OTHERS = ("common/harness", "common/models")
SOURCES = (".cu", ".cuh", ".h", ".cpp")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def step_folders(root):
    return sorted(p for p in root.glob("0[1-9]_*") if p.is_dir())


def step_number(folder):
    m = re.match(r"0([1-9])_", folder.split("/")[0])
    return int(m.group(1)) if m else None


def header_homes(root):
    """Header name -> the folders (relative to root) that hold a file of that name."""
    homes = {}
    for folder in [*step_folders(root), *(root / f for f in FLOORS + OTHERS)]:
        for path in folder.rglob("*"):
            if path.suffix in SOURCES:
                homes.setdefault(path.name, set()).add(path.parent.relative_to(root).as_posix())
    return homes


def violations(root):
    homes = header_homes(root)
    found = []
    for folder in [*(root / f for f in FLOORS), *step_folders(root)]:
        rel = folder.relative_to(root).as_posix()
        own = step_number(rel)
        for path in sorted(folder.rglob("*")):
            if path.suffix not in SOURCES:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or (path.parent / m.group(1)).exists():  # beside the file: its own folder's
                    continue
                for home in sorted(homes.get(pathlib.PurePosixPath(m.group(1)).name, ())):
                    target = step_number(home)
                    where = f"{path.relative_to(root).as_posix()}:{number} includes {m.group(1)} from {home}"
                    if own is None and target is not None:
                        found.append(f"{where}: {rel} is a floor and includes no step")
                    elif own is not None and target is not None and target > own:
                        found.append(f"{where}: a step includes only earlier steps")
                    elif own is not None and target is None and home not in FLOORS:
                        found.append(f"{where}: a step includes only earlier steps, {FLOORS[0]} and {FLOORS[1]}")
    return found


class Layering(unittest.TestCase):
    def test_includes_run_one_way(self):
        self.assertEqual(violations(ROOT), [])

    def test_each_wrong_way_is_reported(self):
        with tempfile.TemporaryDirectory() as tmp:
            root = pathlib.Path(tmp)
            files = {
                "05_wgmma/gemm.cu": '#include "schedule.cuh"\n#include "wgmma.cuh"\n#include "cli.h"\n',
                "05_wgmma/wgmma.cuh": '#include "step_api.h"\n',
                "07_clusters_multicast/schedule.cuh": '#include "wgmma.cuh"\n',
                "common/kernel/layout.h": '#include "schedule.cuh"\n',
                "common/library/step_api.h": "",
                "common/harness/cli.h": '#include "schedule.cuh"\n',
            }
            for name, text in files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text)
            found = violations(root)
        self.assertEqual(len(found), 3, found)
        self.assertIn("05_wgmma/gemm.cu:1 includes schedule.cuh from 07_clusters_multicast: a step includes only "
                      "earlier steps", found)
        self.assertIn("05_wgmma/gemm.cu:3 includes cli.h from common/harness: a step includes only earlier steps, "
                      "common/kernel and common/library", found)
        self.assertIn("common/kernel/layout.h:1 includes schedule.cuh from 07_clusters_multicast: common/kernel is "
                      "a floor and includes no step", found)


if __name__ == "__main__":
    sys.exit(unittest.main())
