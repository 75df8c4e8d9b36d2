"""Reading the CSV files the ladder's programs write (bench.csv, timeline CSVs), and loading
matplotlib, shared by plot.py, plot_timeline.py, plot_layouts.py and results_table.py. What
they cannot do (a missing or empty file, no matplotlib) ends in one line naming the script,
never a traceback."""
import csv
import sys


def pyplot():
    """matplotlib.pyplot drawing to files only (the Agg backend), or None where matplotlib is
    not installed: a script's pure functions stay importable (the tests use them), and its
    main() calls need_pyplot before drawing."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot
    return matplotlib.pyplot


def need_pyplot(plt, tool):
    """Exits with one line naming `tool` when pyplot() found no matplotlib."""
    if plt is None:
        sys.exit(f"{tool}: needs matplotlib, which {sys.executable} cannot import "
                 "(pip install matplotlib)")


# Columns renamed since older CSVs were written: new name -> old name. The old columns held
# the planner's upper bound, the new ones its prediction; each row says which in
# "planner_kind" ("bound" or "predicted").
RENAMED = {"predicted_tflops": "plan_tflops", "predicted_limiter": "plan_limiter"}


def read_rows(path, tool, needed, ints=(), floats=(), hint=""):
    """Rows of `path` as dicts, with the named columns converted. Exits with a message naming
    `tool` when the file cannot be read or is empty (followed by `hint`, e.g. what writes
    it), a needed column is missing or the file has no rows. A column of RENAMED is found under
    its old name too."""
    try:
        f = open(path, newline="")
    except OSError as e:
        sys.exit(f"{tool}: cannot read {path}: {e.strerror}{hint}")
    with f:
        reader = csv.DictReader(f)
        fields = reader.fieldnames or []
        if not fields:
            sys.exit(f"{tool}: {path} is empty{hint}")
        old = {new: was for new, was in RENAMED.items() if new not in fields and was in fields}
        missing = [c for c in needed if c not in fields and c not in old]
        if missing:
            sys.exit(f"{tool}: {path}: missing column(s) {', '.join(missing)}")
        rows = list(reader)
    if not rows:
        sys.exit(f"{tool}: {path} has no rows")
    for r in rows:
        for new, was in old.items():
            r[new] = r[was]
        r["planner_kind"] = "bound" if old else "predicted"
        for key in ints:
            r[key] = int(r[key])
        for key in floats:
            r[key] = float(r[key])
    return rows


def shape_text(s):
    """(M, N, K) as '4096³' for a cube, '1000×1992×2056' otherwise."""
    return f"{s[0]}³" if s[0] == s[1] == s[2] else f"{s[0]}×{s[1]}×{s[2]}"


def measured_on(rows):
    """Sorted sets of the devices, CUDA versions and dates the rows were measured with."""
    return (sorted({r["device"] for r in rows}), sorted({r["cuda"] for r in rows}),
            sorted({r["date"] for r in rows}))
