#!/usr/bin/env python3
"""Unit test of common/scripts/grade.py without a GPU: the region and library checks, the
hints it picks, and the gradebook, with a fake runner in place of the builds and the GPU.
CPU only; run by ctest (grader_logic)."""
import contextlib
import csv
import pathlib
import shutil
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "common" / "scripts"))
import grade  # noqa: E402

FOLDER = "04_tma_multistage"
EXERCISE = ROOT / FOLDER / "exercise.cu"
SOLUTION = ROOT / "tests/fixtures/exercises/solutions" / f"{FOLDER}.cu"


class FakeRunner:
    """Builds fail when the file holds BUILD_ERROR; the check fails with a hang when it holds
    HANGS, passes otherwise; the bench answers fixed numbers."""
    jobs = 1

    def __init__(self, out):
        self.out = pathlib.Path(out)
        self.source = str(SOLUTION)
        self.checked = []

    def prepare(self):
        return EXERCISE

    def build_submission(self, student, src, work):
        text = pathlib.Path(src).read_text()
        if "BUILD_ERROR" in text:
            return False, f"{work}/exercise.cu(280): error: identifier \"BUILD_ERROR\" is undefined\n"
        return True, "built\n"

    def hand_over(self, work, to_student=True):
        pass

    def gpu_lock(self):
        return contextlib.nullcontext()

    def check(self, student, src, work):
        self.checked.append(student)
        if "HANGS" in pathlib.Path(src).read_text():
            return 1, ("+ step-4 --check --sizes small\n"
                       "LADDER_HANG_TRAP: empty barrier: block (0,0,0) thread 0 waited > ~2 s\n"
                       "FAIL: exercise 4 (step executable: exit 1, GPU tests: not run)\n"
                       "hang trap fired: a wait on an mbarrier never completed (the exercise build stops a\n"
                       "hint (step 4): correct for short K but a hang trap beyond\n")
        return 0, ("sanitizer memcheck: clean\nsanitizer racecheck: clean\n"
                   "sanitizer synccheck: clean\nPASS: exercise 4\n")

    def bench(self, student, work):
        tf = 300.0 if student == "_reference" else 250.5
        return (f"bench 04_tma_multistage            2048x2048x2048        0.1000 ms {tf:7.1f} TFLOP/s | x\n"
                f"bench 04_tma_multistage            4096x4096x4096        0.5000 ms {tf + 1:7.1f} TFLOP/s | x\n")


def solved_region(extra):
    """The reference solution with `extra` added inside its last region."""
    text = SOLUTION.read_text()
    i = text.rindex("        // EXERCISE END")
    return text[:i] + extra + text[i:]


class Grader(unittest.TestCase):
    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        self.sub = self.tmp / "submissions"
        self.sub.mkdir()
        self.out = self.tmp / "out"

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def put(self, name, text, folder=False):
        if folder:
            (self.sub / name).mkdir()
            (self.sub / name / "exercise.cu").write_text(text)
        else:
            (self.sub / f"{name}.cu").write_text(text)

    def run_grader(self):
        runner = FakeRunner(self.out)
        subs = grade.find_submissions(self.sub)
        results, reference = grade.grade(4, subs, self.out, runner, bench=True, log=lambda m: None)
        shapes = ["2048x2048x2048", "4096x4096x4096"]
        grade.write_gradebook(results, shapes, reference, self.out)
        with open(self.out / "gradebook.csv", newline="") as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        return rows, runner

    def test_whole_class(self):
        self.put("ada", SOLUTION.read_text(), folder=True)
        self.put("bob", solved_region("        BUILD_ERROR;\n"))
        self.put("cy", solved_region("        // HANGS\n"))
        self.put("dee", EXERCISE.read_text().replace("constexpr int STAGES = 4;", "constexpr int STAGES = 3;"))
        self.put("eve", solved_region("        cublasGemmEx(nullptr);\n"))
        self.put("fay", solved_region("        // cuBLAS would do this in one call, but not here\n"))
        no_delay = "".join(l for l in SOLUTION.read_text().splitlines(True)
                           if "LADDER_EXERCISE_DELAY" not in l)
        self.put("gus", no_delay)
        rows, runner = self.run_grader()

        self.assertEqual(rows["ada"]["passed"], "yes")
        self.assertEqual(rows["ada"]["TFLOP/s 2048x2048x2048"], "250.5")
        self.assertEqual(rows["ada"]["reference TFLOP/s 4096x4096x4096"], "301.0")
        self.assertEqual(rows["ada"]["memcheck"], "clean")

        self.assertEqual((rows["bob"]["built"], rows["bob"]["passed"]), ("no", "no"))
        self.assertIn("error: identifier", rows["bob"]["first hint"])
        self.assertNotIn(str(self.out), rows["bob"]["first hint"])

        self.assertEqual((rows["cy"]["built"], rows["cy"]["passed"]), ("yes", "no"))
        self.assertTrue(rows["cy"]["first hint"].startswith("hang trap fired"), rows["cy"])
        self.assertEqual(rows["cy"]["racecheck"], "not run")
        self.assertEqual(rows["cy"]["TFLOP/s 2048x2048x2048"], "")

        self.assertEqual(rows["dee"]["status"], "rejected: edits outside the exercise regions")
        self.assertEqual(rows["dee"]["built"], "not tried")
        self.assertEqual(rows["gus"]["status"], "rejected: edits outside the exercise regions")

        self.assertEqual(rows["eve"]["status"], "rejected: calls a library or another kernel")
        self.assertIn("cuBLAS", rows["eve"]["first hint"])
        self.assertEqual(rows["fay"]["passed"], "yes")  # a comment is not a call

        # Only submissions that built reached the GPU, each once, after the reference.
        self.assertEqual(runner.checked, ["_reference", "ada", "cy", "fay"])
        md = (self.out / "gradebook.md").read_text()
        self.assertIn("2 of 7 submissions passed", md)
        self.assertIn("| ada | yes | yes | passed |", md)
        self.assertTrue((self.out / "logs" / "cy.log").read_text().count("LADDER_HANG_TRAP"))

    def test_submission_names(self):
        self.put("ok_name", "x")
        (self.sub / "no exercise here").mkdir()
        with self.assertRaises(ValueError) as e:
            grade.find_submissions(self.sub)
        self.assertIn("no exercise.cu", str(e.exception))
        shutil.rmtree(self.sub / "no exercise here")
        self.put("ok_name", "x", folder=True)
        with self.assertRaises(ValueError) as e:
            grade.find_submissions(self.sub)
        self.assertIn("more than one submission for ok_name", str(e.exception))

    def test_first_hint(self):
        self.assertEqual(grade.first_hint("noise\nFAIL: exercise 3 (step executable: exit 1)\n"
                                          "hint (step 3): wrong in columns\n"),
                         "hint (step 3): wrong in columns")
        self.assertEqual(grade.first_hint("FAIL: exercise 2: the numbers are right, but "
                                          "compute-sanitizer objects: racecheck\nracecheck: ...\n"),
                         "FAIL: exercise 2: the numbers are right, but compute-sanitizer objects: racecheck")
        self.assertEqual(grade.first_hint("FAIL: exercise 4 (step executable: exit 124, GPU tests: not run)\n"
                                          "TIME LIMIT: step-check --check ran out of time after 60 s and "
                                          "was stopped\n  No hang trap fired\n"),
                         "TIME LIMIT: step-check --check ran out of time after 60 s and was stopped")
        self.assertEqual(grade.first_hint("all fine\n"), "")

    def test_tree_without_git(self):
        tree = self.tmp / "tree"
        for rel in ("04_x/gemm.cu", "tests/run_exercise.sh", "build-ex/step-4", ".git/HEAD",
                    "results/h100/bench.csv", "out/gradebook.md"):
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_text("x")
        self.assertEqual(sorted(grade.tree_files(tree, tree / "out")),
                         ["04_x/gemm.cu", "tests/run_exercise.sh"])

    def test_library_calls(self):
        path = self.tmp / f"{FOLDER}.cu"
        for call, what in (("#include <cublas_v2.h>", "#include"), ("cutlass::gemm::Gemm g;", "CUTLASS"),
                           ("at::matmul(a, b);", "PyTorch"), ("system(\"rm -rf /\");", "process"),
                           ("ladder_gemm(4, 0, 0, 0, 1, 1, 1, nullptr);", "another step")):
            path.write_text(solved_region(f"        {call}\n"))
            found = grade.library_calls(path)
            self.assertTrue(found, call)
            self.assertTrue(any(what in f for f in found), (call, found))
        path.write_text(SOLUTION.read_text())
        self.assertEqual(grade.library_calls(path), [])


if __name__ == "__main__":
    unittest.main()
