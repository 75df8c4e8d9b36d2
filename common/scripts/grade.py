#!/usr/bin/env python3
"""grade.py: grade a class's submissions of one implementation exercise.

    python3 common/scripts/grade.py --step N --submissions DIR --out DIR
        [--timeout S] [--jobs J] [--user nobody] [--lock FILE]
        [--shapes MxNxK,MxNxK] [--no-bench]

A submission is one exercise.cu per student: DIR/<student>/exercise.cu or DIR/<student>.cu
(<student>: letters, digits, '.', '_' or '-'). For each, in order:

  1. frame: only the EXERCISE regions may differ from the exercise as handed out
     (exercises.py frame; the delay lines outside the regions belong to the check);
  2. library: the regions may not include headers nor call a library GEMM or another
     step's kernel (cuBLAS, CUTLASS/CuTe, cuDNN, PyTorch, ladder_gemm...), nor start
     processes (system, popen, exec*, fork, dlopen);
  3. build: the step's kernel file compiled alone, with the flags of the exercise build
     (delays and hang trap), linked into that student's own step executable; a second
     build without delays and trap for timing (the grader's own build, configure_command,
     holds that one step and nothing else of the ladder);
  4. check: tests/run_exercise.sh (the same check as `ctest -L exercise-N`, with the
     executable's shapes in place of the GoogleTest binary), every command under
     --timeout seconds, the whole check under 6 x --timeout + 60;
  5. bench: TFLOP/s at two named shapes (--shapes), beside the reference solution's,
     measured the same way.

Steps 4 and 5 hold the GPU lock (--lock, default OUT/gpu.lock, flock): one student at a
time, also across several graders on one machine. Builds run --jobs at a time.

Isolation: every student gets a folder <tmp>/ladder-grade-*/<student>/ (mode 0700). The clean tree and its
builds (OUT/tree, OUT/build: they hold the reference solutions) are mode 0700 too. Run
as root, the grader runs each student's program as --user (default nobody) through
setpriv (or runuser), with the student's folder chowned to that user: it can read its own
folder and the check's kit (OUT/kit: the check scripts and the handed-out exercise.cu),
nothing else of the grader's. Not root: it runs as the current user, and says so.
tests/TEACHING.md tells how to add a container.

Writes OUT/gradebook.csv, OUT/gradebook.md and each student's log under OUT/logs/.
Exit 0 when every submission was graded (whatever the grades), 1 on a problem of the
grader itself (no step, no submissions, the reference does not build or pass).
"""
import argparse
import concurrent.futures
import csv
import dataclasses
import fcntl
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import exercises  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUDENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
VARIANT = {6: "cooperative", 7: "lesson"}

# What a region may not contain: another library's GEMM, another step's kernel, a header
# (everything a solution needs is already included), or a way out of the process.
FORBIDDEN = [
    (re.compile(r"#\s*include"), "an #include (everything the exercise needs is included)"),
    (re.compile(r"cublas", re.I), "cuBLAS"),
    (re.compile(r"cutlass|\bcute::", re.I), "CUTLASS/CuTe"),
    (re.compile(r"cudnn", re.I), "cuDNN"),
    (re.compile(r"\btorch\b|\bat::|\bc10::"), "PyTorch"),
    (re.compile(r"\bladder_gemm\w*|\bstep0[1-7]::|\bfind_step\b"), "another step's kernel"),
    (re.compile(r"\b(system|popen|execv\w*|execl\w*|fork|dlopen|dlsym)\s*\("),
     "starting a process or loading a library"),
    (re.compile(r"\basm\b[^;]*\bcall\b"), "a call from inline assembly"),
]


@dataclasses.dataclass
class Result:
    student: str
    built: str = "no"          # yes / no / not tried
    passed: str = "no"         # yes / no
    status: str = ""           # one line: passed, rejected (why), build failed, failed
    hint: str = ""             # the first hint the check printed, on failure
    memcheck: str = "not run"
    racecheck: str = "not run"
    synccheck: str = "not run"
    tflops: dict = dataclasses.field(default_factory=dict)  # shape -> number or ""
    log: str = ""


# ---- the checks that need no GPU ---------------------------------------------------------
def find_submissions(folder):
    """[(student, path)], sorted; raises ValueError on a name that cannot be a folder."""
    folder = pathlib.Path(folder)
    found, bad = [], []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir():
            path, name = entry / "exercise.cu", entry.name
            if not path.is_file():
                bad.append(f"{entry}: no exercise.cu in it")
                continue
        elif entry.suffix == ".cu" and entry.is_file():
            path, name = entry, entry.stem
        else:
            continue
        if not STUDENT.match(name):
            bad.append(f"{entry}: '{name}' is not a usable student name (letters, digits, . _ -)")
            continue
        found.append((name, path))
    names = [n for n, _ in found]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        bad.append(f"{folder}: more than one submission for {', '.join(dup)}")
    if bad:
        raise ValueError("\n".join(bad))
    return found


def region_text(path):
    """The lines inside the student's regions, with their line numbers (1-based)."""
    lines = exercises.read_lines(path)
    out = []
    for r in exercises.parse_regions(lines, path, exercises.EXERCISE):
        if r.fixed:
            continue
        for i in range(r.begin + 1, r.end):
            out.append((i + 1, lines[i]))
    return out


def library_calls(path):
    """Messages for each forbidden use inside the regions (comments and strings ignored)."""
    found = []
    for number, line in region_text(path):
        code = exercises.code_of(line)
        for pattern, what in FORBIDDEN:
            if pattern.search(code):
                found.append(f"{path}:{number}: {what}: {line.strip()}")
    return found


def first_hint(output):
    """The first line of the check's output that says what went wrong: a specific hint
    (time limit, hang trap, sanitizer report, the step's hint, NaN, a race) before the
    plain FAIL line; '' when there is none."""
    specific = ("TIME LIMIT", "hang trap fired", "FAIL: exercise", "hint (step", "NaN in C",
                "Two runs gave")
    fail = ""
    for line in output.splitlines():
        text = line.strip()
        if text.startswith("FAIL: exercise"):
            if "objects:" in text or "changed outside" in text or "NOT" in text:
                return text
            fail = fail or text
            continue
        if text.startswith(specific):
            return text
    return fail


def sanitizer_verdicts(output):
    verdicts = {}
    for tool in ("memcheck", "racecheck", "synccheck"):
        m = re.search(rf"^sanitizer {tool}: (.*)$", output, re.M)
        verdicts[tool] = m.group(1).strip() if m else "not run"
    return verdicts


BENCH = re.compile(r"^bench\s+\S+\s+(\d+x\d+x\d+)\s+[\d.]+ ms\s+([\d.]+) TFLOP/s", re.M)


def bench_numbers(output):
    return {shape: float(tf) for shape, tf in BENCH.findall(output)}


def write_gradebook(results, shapes, reference, out):
    """OUT/gradebook.csv and OUT/gradebook.md."""
    out = pathlib.Path(out)
    header = (["student", "built", "passed", "status", "first hint", "memcheck", "racecheck",
               "synccheck"] + [f"TFLOP/s {s}" for s in shapes] +
              [f"reference TFLOP/s {s}" for s in shapes] + ["log"])

    def cell(v):
        return f"{v:.1f}" if isinstance(v, float) else ("" if v is None else str(v))

    rows = []
    for r in results:
        rows.append([r.student, r.built, r.passed, r.status, r.hint, r.memcheck, r.racecheck,
                     r.synccheck] + [cell(r.tflops.get(s)) for s in shapes] +
                    [cell(reference.get(s)) for s in shapes] + [r.log])
    with open(out / "gradebook.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)

    def md(v):
        return str(v).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md(v) for v in row) + " |" for row in rows]
    passed = sum(r.passed == "yes" for r in results)
    (out / "gradebook.md").write_text(
        f"{passed} of {len(results)} submissions passed.\n\n" + "\n".join(lines) + "\n",
        encoding="utf-8")


# ---- the parts that build and run ----------------------------------------------------------
def tree_files(root, out):
    """The files of the clean tree: git's tracked files, or, outside a git checkout, every
    file but build folders, hidden ones, results/ and the grader's own output."""
    files = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True)
    if files.returncode == 0 and files.stdout:
        names = [n for n in files.stdout.decode().split("\0") if n]
    else:
        names = []
        out = pathlib.Path(out).resolve()
        for folder, dirs, found in os.walk(root):
            here = pathlib.Path(folder)
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build", "__pycache__"))
                             and not (here == root and d == "results")
                             and (here / d).resolve() != out)
            names += [str((here / f).relative_to(root)) for f in sorted(found)]
    return [n for n in names if (pathlib.Path(root) / n).is_file()]


def configure_command(tree, build, step):
    """The CMake command of the grader's build: step `step` alone (LADDER_ONLY_STEPS), from
    its reference solution, with the exercise build's delays and hang trap; no tests, no
    tools (the check runs tests/run_exercise.sh with the executable's shapes)."""
    return ["cmake", "-S", str(tree), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            "-DLADDER_EXERCISES=ON", f"-DLADDER_EXERCISE_STEPS={step}", "-DLADDER_EXERCISE_SOLUTIONS=ON",
            f"-DLADDER_ONLY_STEPS={step}", "-DLADDER_BUILD_TESTS=OFF", "-DLADDER_BUILD_TOOLS=OFF",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]


class Runner:
    """Builds a submission alone and runs the check and the bench. The CPU tests replace it
    with a fake (tests/test_grade.py)."""

    def __init__(self, step, out, timeout, user, shapes, lock, jobs, log):
        self.step, self.out, self.timeout = step, pathlib.Path(out), timeout
        self.user, self.shapes, self.lock_path, self.jobs, self.log = user, shapes, lock, jobs, log
        self.tree = self.out / "tree"
        self.build = self.out / "build"
        # The students' folders and the check's kit live where the unprivileged user can
        # reach them whatever the permissions of the folders above OUT: a fresh folder in
        # the system's temporary directory (mode 0711: no listing).
        import tempfile
        self.scratch = pathlib.Path(tempfile.mkdtemp(prefix="ladder-grade-"))
        os.chmod(self.scratch, 0o711)
        self.kit = self.scratch / "kit"
        self.folder = None

    # The clean tree, the base build (the reference solution, so that the step's other
    # objects exist), and the compile and link commands of the step's kernel file.
    def prepare(self):
        for d in (self.tree, self.build):
            if d.exists():
                shutil.rmtree(d)
        for rel in tree_files(ROOT, self.out):
            dst = self.tree / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dst)
        os.chmod(self.tree, 0o700)
        folders = sorted(p.name for p in self.tree.glob(f"0{self.step}_*") if p.is_dir())
        if not folders:
            raise RuntimeError(f"no step folder 0{self.step}_* in the tree")
        self.folder = folders[0]
        self.log(f"configuring the exercise build of step {self.step} in {self.build}")
        self.build.mkdir(parents=True)
        os.chmod(self.build, 0o700)
        run = subprocess.run(configure_command(self.tree, self.build, self.step),
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("cmake configure failed:\n" + run.stdout[-3000:] + run.stderr[-3000:])
        self.log(f"building step-{self.step} from the reference solution")
        run = subprocess.run(["cmake", "--build", str(self.build), "--target", f"step-{self.step}",
                              "-j", str(max(2, self.jobs))], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("building the reference failed:\n" + run.stdout[-3000:])
        source = self.tree / "tests/fixtures/exercises/solutions" / f"{self.folder}.cu"
        commands = json.loads((self.build / "compile_commands.json").read_text())
        entry = next((c for c in commands if pathlib.Path(c["file"]).resolve() == source.resolve()
                      and f"ladder_step{self.step}.dir" in c.get("output", c["command"])), None)
        if entry is None:
            raise RuntimeError(f"no compile command for {source} in compile_commands.json")
        self.compile_dir = entry["directory"]
        self.compile = shlex.split(entry["command"])
        self.source = str(source)
        link = subprocess.run(["ninja", "-C", str(self.build), "-t", "commands", f"step-{self.step}"],
                              capture_output=True, text=True).stdout.strip().splitlines()[-1]
        self.link = link
        obj = self.compile[self.compile.index("-o") + 1]
        self.object = obj
        # A link that kept the reference's object would pass every student: refuse.
        if obj not in self.link or not re.search(r"-o \S*step-%d\b" % self.step, self.link):
            raise RuntimeError(f"the link command of step-{self.step} does not name {obj} and "
                               f"its output as expected: {self.link}")
        # The check's kit: what the unprivileged check needs, and nothing of the solutions.
        if self.kit.exists():
            shutil.rmtree(self.kit)
        for rel in ("tests/run_exercise.sh", "tests/run_sanitizer.sh", "common/scripts/exercises.py"):
            (self.kit / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.tree / rel, self.kit / rel)
        (self.kit / self.folder).mkdir(parents=True, exist_ok=True)
        shutil.copy2(self.tree / self.folder / "exercise.cu", self.kit / self.folder / "exercise.cu")
        for p in [self.kit] + list(self.kit.rglob("*")):
            os.chmod(p, 0o755 if p.is_dir() or p.suffix in (".sh", ".py") else 0o644)
        return self.tree / self.folder / "exercise.cu"

    def _build_one(self, src, obj, exe, timing):
        cmd = list(self.compile)
        cmd = [str(src) if a == self.source or a.endswith(self.source) else a for a in cmd]
        cmd[cmd.index("-o") + 1] = str(obj)
        for flag in ("-MD", "-MT", "-MF"):
            while flag in cmd:
                i = cmd.index(flag)
                del cmd[i:i + (1 if flag == "-MD" else 2)]
        if timing:
            cmd = [a for a in cmd if a not in ("-DLADDER_EXERCISE_DELAYS", "-DLADDER_EXERCISE_TMA",
                                               "-DLADDER_HANG_TRAP")]
        r = subprocess.run(cmd, cwd=self.compile_dir, capture_output=True, text=True,
                           timeout=600)
        if r.returncode != 0:
            return False, r.stdout + r.stderr
        link = self.link.replace(self.object, str(obj))
        link = re.sub(r"-o \S*step-%d\b" % self.step, f"-o {exe}", link)
        assert self.object not in link and str(obj) in link and str(exe) in link, link
        r = subprocess.run(link, shell=True, cwd=self.build, capture_output=True, text=True,
                           timeout=600)
        return r.returncode == 0, r.stdout + r.stderr

    def build_submission(self, student, src, work):
        """(ok, log): the check build and the timing build of src in the folder work."""
        ok, log = self._build_one(src, work / "check.o", work / "step-check", timing=False)
        if not ok:
            return False, log
        ok2, log2 = self._build_one(src, work / "timing.o", work / "step-timing", timing=True)
        return ok2, log + log2

    def _as_student(self, cmd, work):
        """cmd run as the unprivileged user (when the grader is root), without its groups."""
        if os.geteuid() != 0 or not self.user:
            return cmd
        import pwd
        gid = pwd.getpwnam(self.user).pw_gid
        if shutil.which("setpriv"):
            return ["setpriv", f"--reuid={self.user}", f"--regid={gid}", "--clear-groups",
                    "--"] + cmd
        return ["runuser", "-u", self.user, "--"] + cmd

    def hand_over(self, work, to_student=True):
        """The student's folder to the unprivileged user for its check, and back after: at
        any time only the folder of the student being checked belongs to that user."""
        if os.geteuid() != 0 or not self.user:
            return
        import pwd
        if to_student:
            entry = pwd.getpwnam(self.user)
            uid, gid = entry.pw_uid, entry.pw_gid
        else:
            uid, gid = os.getuid(), os.getgid()
        for p in [work] + list(work.rglob("*")):
            os.chown(p, uid, gid, follow_symlinks=False)

    def check(self, student, src, work):
        """The check's output (exit status, text)."""
        env = dict(os.environ, LADDER_EXERCISE_TIMEOUT=str(self.timeout),
                   LADDER_EXERCISE_FRAME=str(self.kit / self.folder / "exercise.cu"),
                   HOME=str(work), TMPDIR=str(work))
        env.pop("LADDER_GPU_LOCK", None)
        cmd = self._as_student(["bash", str(self.kit / "tests/run_exercise.sh"), str(self.step),
                                str(src), "-", str(work / "step-check")], work)
        try:
            r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                               timeout=6 * self.timeout + 60)
            return r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            text = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
            return 124, text + f"\nTIME LIMIT: the whole check ran out of time after {6 * self.timeout + 60} s and was stopped\n"

    def bench(self, student, work):
        variant = (["--variant", VARIANT[self.step]] if self.step in VARIANT
                   else ["--variants", "default"])
        cmd = self._as_student([str(work / "step-timing"), "--bench", "--sizes",
                                ",".join(self.shapes)] + variant, work)
        try:
            r = subprocess.run(cmd, cwd=work, capture_output=True, text=True,
                               timeout=4 * self.timeout, env=dict(os.environ, HOME=str(work)))
            return r.stdout + r.stderr
        except subprocess.TimeoutExpired:
            return f"bench ran out of time after {4 * self.timeout} s and was stopped\n"

    def gpu_lock(self):
        return GpuLock(self.lock_path)


class GpuLock:
    def __init__(self, path):
        self.path = path

    def __enter__(self):
        self.f = open(self.path, "a")
        fcntl.flock(self.f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.f, fcntl.LOCK_UN)
        self.f.close()


def grade(step, submissions, out, runner, bench=True, log=print):
    """Grades every submission; returns (results, reference TFLOP/s by shape)."""
    out = pathlib.Path(out)
    (out / "logs").mkdir(parents=True, exist_ok=True)
    os.chmod(out / "logs", 0o700)
    work_root = getattr(runner, "scratch", out / "work")
    work_root.mkdir(parents=True, exist_ok=True)
    os.chmod(work_root, 0o711)  # each student's folder inside is its own
    pristine = runner.prepare()

    # The reference solution, through the same path as every submission.
    ref_work = work_root / "_reference"
    if ref_work.exists():
        shutil.rmtree(ref_work)
    ref_work.mkdir(mode=0o700)
    ref_src = ref_work / "exercise.cu"
    shutil.copy2(runner.source, ref_src)
    ok, text = runner.build_submission("_reference", ref_src, ref_work)
    if not ok:
        raise RuntimeError("the reference solution does not build:\n" + text[-3000:])
    runner.hand_over(ref_work)
    with runner.gpu_lock():
        rc, text = runner.check("_reference", ref_src, ref_work)
        (out / "logs" / "_reference.log").write_text(text, encoding="utf-8")
        if rc != 0:
            raise RuntimeError(f"the reference solution fails the check (log: "
                               f"{out / 'logs' / '_reference.log'}): is this a Hopper GPU with "
                               f"compute-sanitizer? First hint: {first_hint(text)}")
        reference = bench_numbers(runner.bench("_reference", ref_work)) if bench else {}
    runner.hand_over(ref_work, to_student=False)

    results = []
    prepared = []
    for student, path in submissions:
        r = Result(student=student, log=f"logs/{student}.log")
        results.append(r)
        work = work_root / student
        if work.exists():
            shutil.rmtree(work)
        work.mkdir(mode=0o700)
        src = work / "exercise.cu"
        shutil.copyfile(path, src)
        problems = exercises.frame_errors(src, pristine)
        if not problems:
            problems = library_calls(src)
            if problems:
                r.status = "rejected: calls a library or another kernel"
        else:
            r.status = "rejected: edits outside the exercise regions"
        if problems:
            r.built = "not tried"
            r.hint = problems[0].replace(str(work) + "/", "").replace(str(out) + "/", "")
            r.hint = r.hint.replace(str(work_root) + "/", "")
            (out / r.log).write_text("\n".join(problems) + "\n", encoding="utf-8")
            continue
        prepared.append((r, src, work))

    def build(item):
        r, src, work = item
        try:
            return item, runner.build_submission(r.student, src, work)
        except subprocess.TimeoutExpired:
            return item, (False, "the build ran out of time after 600 s and was stopped")

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, runner.jobs)) as pool:
        built = list(pool.map(build, prepared))

    for (r, src, work), (ok, text) in built:
        log_path = out / r.log
        if not ok:
            r.built, r.status = "no", "build failed"
            errors = [l for l in text.splitlines() if "error" in l]
            last = text.strip().splitlines()[-1:] or [""]
            r.hint = (errors[0] if errors else last[0]).replace(str(work) + "/", "")
            log_path.write_text(text, encoding="utf-8")
            continue
        r.built = "yes"
        runner.hand_over(work)
        log(f"checking {r.student}")
        with runner.gpu_lock():
            started = time.time()
            rc, text = runner.check(r.student, src, work)
            spent = time.time() - started
            verdicts = sanitizer_verdicts(text)
            r.memcheck, r.racecheck, r.synccheck = (verdicts[t] for t in
                                                     ("memcheck", "racecheck", "synccheck"))
            if rc == 0:
                r.passed, r.status = "yes", "passed"
                if bench:
                    bench_text = runner.bench(r.student, work)
                    r.tflops = bench_numbers(bench_text)
                    text += "\n---- bench (no delays, no hang trap) ----\n" + bench_text
            else:
                r.status = "failed" if rc != 124 else "time limit"
                r.hint = first_hint(text)
        runner.hand_over(work, to_student=False)
        log_path.write_text(text + f"\n(check took {spent:.0f} s)\n", encoding="utf-8")
    return results, reference


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", type=int, required=True, choices=range(1, 8))
    parser.add_argument("--submissions", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=int, default=120,
                        help="seconds each command of a check may take (default 120)")
    parser.add_argument("--jobs", type=int, default=4, help="builds at a time (default 4)")
    parser.add_argument("--user", default="nobody",
                        help="when run as root: the user the students' programs run as")
    parser.add_argument("--lock", help="the GPU lock file (default OUT/gpu.lock)")
    parser.add_argument("--shapes", default="2048x2048x2048,4096x4096x4096",
                        help="the two shapes timed (default 2048x2048x2048,4096x4096x4096)")
    parser.add_argument("--no-bench", action="store_true", help="skip the timing")
    args = parser.parse_args(argv)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if any(not re.fullmatch(r"\d+x\d+x\d+", s) for s in shapes):
        parser.error("--shapes: give MxNxK,MxNxK")
    out = pathlib.Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    try:
        submissions = find_submissions(args.submissions)
    except (ValueError, OSError) as e:
        print(f"grade.py: {e}", file=sys.stderr)
        return 1
    if not submissions:
        print(f"grade.py: no submissions in {args.submissions} (want DIR/<student>/exercise.cu "
              f"or DIR/<student>.cu)", file=sys.stderr)
        return 1
    if os.geteuid() != 0:
        print("grade.py: not root, so the students' programs run as this user: run it as root "
              "(or in a container, tests/TEACHING.md) to isolate them", file=sys.stderr)
    runner = Runner(args.step, out, args.timeout, args.user if os.geteuid() == 0 else None,
                    shapes, args.lock or str(out / "gpu.lock"), args.jobs,
                    lambda m: print(f"grade.py: {m}", flush=True))
    try:
        results, reference = grade(args.step, submissions, out, runner, not args.no_bench,
                                   runner.log)
    except RuntimeError as e:
        print(f"grade.py: {e}", file=sys.stderr)
        return 1
    write_gradebook(results, shapes, reference, out)
    passed = sum(r.passed == "yes" for r in results)
    print(f"grade.py: {passed} of {len(results)} passed; {out / 'gradebook.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
