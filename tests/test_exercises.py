#!/usr/bin/env python3
"""Unit test of common/scripts/exercises.py on the small fixtures in tests/fixtures/exercises
(check) and on files made in a temporary folder (sync). CPU only; run by ctest."""
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "common" / "scripts"))
import exercises  # noqa: E402

FIXTURES = HERE / "fixtures" / "exercises"

SOLUTION = """\
// header
#include <x>

int work(int a, int b) {
    int s = 0;
    for (int i = 0; i < a; ++i)
        s += b;
    return s;
}

int main() { return work(2, 3); }
"""

EXERCISE = """\
// header
#include <x>

int work(int a, int b) {
    // EXERCISE BEGIN: the loop
    // TODO: multiply by adding
    int s = 0;
    (void)a;
    (void)b;
    // EXERCISE END
    return s;
}

int main() { return work(2, 3); }
"""


class Check(unittest.TestCase):
    def errors(self, name):
        return exercises.check_file(FIXTURES / name / "exercise.cu")

    def test_difference_inside_a_region_is_accepted(self):
        self.assertEqual(self.errors("inside"), [])

    def test_difference_outside_a_region_is_rejected_with_its_line(self):
        errors = self.errors("outside")
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("exercise.cu:9:", errors[0])
        self.assertIn("outside any EXERCISE region", errors[0])

    def test_unclosed_region_is_rejected(self):
        errors = self.errors("unbalanced")
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("never closed", errors[0])

    def test_solution_line_missing_outside_a_region_is_rejected(self):
        errors = self.errors("missing_line")
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("missing here", errors[0])

    def test_markers_parse(self):
        lines = ["a\n", "// EXERCISE BEGIN: t\n", "b\n", "// EXERCISE END\n",
                 "// EXERCISE END\n"]
        with self.assertRaisesRegex(exercises.ExerciseError, "without an EXERCISE BEGIN"):
            exercises.parse_regions(lines, "f.cu")
        nested = ["// EXERCISE BEGIN: a\n", "// EXERCISE BEGIN: b\n", "// EXERCISE END\n"]
        with self.assertRaisesRegex(exercises.ExerciseError, "do not nest"):
            exercises.parse_regions(nested, "f.cu")


class Structure(unittest.TestCase):
    """Regions hold whole statements: not part of a `for` header, not a brace-less branch."""

    def errors(self, solution, exercise):
        with tempfile.TemporaryDirectory() as d:
            folder = pathlib.Path(d) / "01_x"
            folder.mkdir()
            (folder / "gemm.cu").write_text(solution)
            (folder / "exercise.cu").write_text(exercise)
            return exercises.check_file(folder / "exercise.cu")

    def test_region_through_a_for_header_is_rejected(self):
        exercise = EXERCISE.replace(
            "    // EXERCISE BEGIN: the loop\n    // TODO: multiply by adding\n    int s = 0;\n"
            "    (void)a;\n    (void)b;\n    // EXERCISE END\n",
            "    int s = 0;\n    // EXERCISE BEGIN: the loop\n    for (int i = 0; i < a; ++i) {\n"
            "    // EXERCISE END\n        s += b;\n    }\n")
        solution = SOLUTION.replace("    for (int i = 0; i < a; ++i)\n        s += b;\n",
                                    "    for (int i = 0; i < a; ++i) {\n        s += b * 1;\n    }\n")
        errors = self.errors(solution, exercise)
        self.assertTrue(any("do not balance" in e for e in errors), errors)

    def test_region_under_a_braceless_else_is_rejected(self):
        solution = "int f(int a) {\n    if (a)\n        return 1;\n    else\n        return 2;\n}\n"
        exercise = ("int f(int a) {\n    if (a)\n        return 1;\n    else\n"
                    "        // EXERCISE BEGIN: the other branch\n        return 0;\n"
                    "        // EXERCISE END\n}\n")
        errors = self.errors(solution, exercise)
        self.assertTrue(any("brace-less 'else'" in e for e in errors), errors)

    def test_whole_statements_are_accepted(self):
        self.assertEqual(self.errors(SOLUTION, EXERCISE), [])


class Derived(unittest.TestCase):
    """Reference solutions and rejected fixtures outside the step folder."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.dir.name)
        (root / "01_x").mkdir()
        (root / "01_x" / "gemm.cu").write_text(SOLUTION)
        (root / "01_x" / "exercise.cu").write_text(EXERCISE)
        self.solutions = root / "tests" / "fixtures" / "exercises" / "solutions"
        self.solutions.mkdir(parents=True)
        self.root = root

    def tearDown(self):
        self.dir.cleanup()

    def test_a_solution_names_its_step_folder(self):
        solution = self.solutions / "01_x.cu"
        solution.write_text(EXERCISE.replace("// TODO: multiply by adding", "// solved: by adding"))
        self.assertEqual(exercises.solution_for(solution).resolve(),
                         (self.root / "01_x" / "gemm.cu").resolve())
        self.assertEqual(exercises.check_file(solution), [])
        self.assertEqual(exercises.reference_solution(self.root / "01_x" / "exercise.cu").resolve(),
                         solution.resolve())
        self.assertEqual(exercises.check_pair(self.root / "01_x" / "exercise.cu", solution), [])
        self.assertIn(solution.resolve(),
                      [f.resolve() for f in exercises.exercise_files(self.root, [])])

    def test_a_solution_with_other_regions_is_rejected(self):
        solution = self.solutions / "01_x.cu"
        solution.write_text(EXERCISE.replace("BEGIN: the loop", "BEGIN: another title"))
        errors = exercises.check_pair(self.root / "01_x" / "exercise.cu", solution)
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("are not those of", errors[0])


class Sync(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.folder = pathlib.Path(self.dir.name) / "01_x"
        self.folder.mkdir()
        self.exercise = self.folder / "exercise.cu"
        self.exercise.write_text(EXERCISE)

    def tearDown(self):
        self.dir.cleanup()

    def sync_to(self, new_solution):
        (self.folder / "gemm.cu").write_text(new_solution)
        base = SOLUTION.splitlines(keepends=True)
        return exercises.sync_file(self.exercise, self.dir.name, base_lines=base)

    def test_change_outside_is_taken_and_region_kept(self):
        new = SOLUTION.replace("// header\n", "// header, edited\n// one more line\n")
        self.sync_to(new)
        self.assertEqual(exercises.check_file(self.exercise), [])
        text = self.exercise.read_text()
        self.assertIn("// one more line", text)
        self.assertIn("// TODO: multiply by adding", text)

    def test_change_inside_the_replaced_lines_keeps_the_stub(self):
        new = SOLUTION.replace("        s += b;\n", "        s = s + b;  // spelled out\n")
        new = new.replace("// header\n", "// header, edited\n")
        report = self.sync_to(new)
        self.assertEqual(exercises.check_file(self.exercise), [])
        self.assertNotIn("spelled out", self.exercise.read_text())
        self.assertIn("review the stub", report[0])

    def test_unchanged_solution_is_a_no_op(self):
        (self.folder / "gemm.cu").write_text(SOLUTION)
        exercises.sync_file(self.exercise, self.dir.name, base_lines=[])
        self.assertEqual(self.exercise.read_text(), EXERCISE)

    def test_line_inserted_at_the_edge_is_refused(self):
        new = SOLUTION.replace("    return s;\n", "    log(s);\n    return s;\n")
        with self.assertRaisesRegex(exercises.ExerciseError, "changed right at the end"):
            self.sync_to(new)
        self.assertEqual(self.exercise.read_text(), EXERCISE)  # nothing written

    def test_replaced_lines_gone_is_refused(self):
        new = SOLUTION.replace("    int s = 0;\n    for (int i = 0; i < a; ++i)\n        s += b;\n", "")
        with self.assertRaises(exercises.ExerciseError):
            self.sync_to(new)

    def test_without_a_clean_base_a_change_away_from_regions_syncs_two_way(self):
        (self.folder / "gemm.cu").write_text(SOLUTION.replace("work(2, 3)", "work(4, 5)"))
        other_base = SOLUTION.replace("#include <x>", "#include <y>").splitlines(keepends=True)
        report = exercises.sync_file(self.exercise, self.dir.name, base_lines=other_base)
        self.assertIn("two-way", report[0])
        self.assertEqual(exercises.check_file(self.exercise), [])
        self.assertIn("work(4, 5)", self.exercise.read_text())

    def test_without_a_clean_base_a_change_next_to_a_region_is_refused(self):
        new = SOLUTION.replace("int work(int a, int b) {", "int work(int a, int b) {  // edited")
        (self.folder / "gemm.cu").write_text(new)
        other_base = SOLUTION.replace("#include <x>", "#include <y>").splitlines(keepends=True)
        with self.assertRaisesRegex(exercises.ExerciseError, "matches neither"):
            exercises.sync_file(self.exercise, self.dir.name, base_lines=other_base)
        self.assertEqual(self.exercise.read_text(), EXERCISE)

# A variant file (gemm_<name>.cu): gemm.cu with VARIANT regions, one of them a pure
# insertion (it replaces no line of gemm.cu).
VARIANT = """\
// header
// VARIANT BEGIN: what this file is
// the same work, spelled with a multiply
// VARIANT END
#include <x>

int work(int a, int b) {
    // VARIANT BEGIN: a multiply
    int s = a * b;
    // VARIANT END
    return s;
}

int main() { return work(2, 3); }
"""


class Variants(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.folder = pathlib.Path(self.dir.name) / "01_x"
        self.folder.mkdir()
        (self.folder / "gemm.cu").write_text(SOLUTION)
        self.variant = self.folder / "gemm_mul.cu"
        self.variant.write_text(VARIANT)

    def tearDown(self):
        self.dir.cleanup()

    def test_variant_matching_outside_its_regions_is_accepted(self):
        self.assertEqual(exercises.check_file(self.variant), [])

    def test_variant_differing_outside_its_regions_is_rejected(self):
        self.variant.write_text(VARIANT.replace("work(2, 3)", "work(2, 4)"))
        errors = exercises.check_file(self.variant)
        self.assertEqual(len(errors), 1)
        self.assertIn("outside any VARIANT region", errors[0])

    def test_exercise_markers_do_not_count_in_a_variant(self):
        self.variant.write_text(VARIANT.replace("VARIANT", "EXERCISE"))
        self.assertIn("no '// VARIANT BEGIN", exercises.check_file(self.variant)[0])

    def test_variant_files_are_listed_with_the_exercises(self):
        self.assertIn(self.variant, exercises.exercise_files(self.dir.name, []))

    def test_sync_keeps_a_pure_insertion_and_takes_changes_elsewhere(self):
        (self.folder / "gemm.cu").write_text(SOLUTION.replace("work(2, 3)", "work(4, 5)"))
        exercises.sync_file(self.variant, self.dir.name, base_lines=SOLUTION.splitlines(keepends=True))
        self.assertEqual(exercises.check_file(self.variant), [])
        text = self.variant.read_text()
        self.assertIn("work(4, 5)", text)
        self.assertIn("// the same work, spelled with a multiply", text)
        self.assertIn("int s = a * b;", text)


class SyncAfterMerge(unittest.TestCase):
    """gemm.cu changed twice since the exercise was made (e.g. a merge brought in a second
    change): sync finds the revision the exercise was made from in gemm.cu's history."""

    def git(self, *args):
        import subprocess
        subprocess.run(["git", "-C", self.dir.name, *args], check=True, capture_output=True)

    def test_base_found_in_history(self):
        import shutil
        if shutil.which("git") is None:
            self.skipTest("git is not installed")
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        folder = pathlib.Path(self.dir.name) / "01_x"
        folder.mkdir()
        self.git("init", "-q")
        self.git("config", "user.email", "t@example.com")
        self.git("config", "user.name", "t")
        (folder / "gemm.cu").write_text(SOLUTION)
        (folder / "exercise.cu").write_text(EXERCISE)
        self.git("add", "-A")
        self.git("commit", "-qm", "one")
        # Two later changes of gemm.cu, one right next to the region: without the right
        # base this is ambiguous (two-way sync refuses it).
        (folder / "gemm.cu").write_text(SOLUTION.replace("#include <x>", "#include <y>"))
        self.git("commit", "-qam", "two")
        new = SOLUTION.replace("#include <x>", "#include <y>").replace(
            "int work(int a, int b) {", "int work(int a, int b) {  // edited")
        (folder / "gemm.cu").write_text(new)
        self.git("commit", "-qam", "three")
        report = exercises.sync_file(folder / "exercise.cu", self.dir.name)
        self.assertNotIn("two-way", report[0])
        self.assertEqual(exercises.check_file(folder / "exercise.cu"), [])
        text = (folder / "exercise.cu").read_text()
        self.assertIn("// edited", text)
        self.assertIn("#include <y>", text)
        self.assertIn("// TODO: multiply by adding", text)



class FixedLinesAndFrame(unittest.TestCase):
    """A LADDER_EXERCISE_DELAY line outside the regions is allowed by check (gemm.cu has
    none), and `frame` holds a student's file to the handed-out one, fixed lines included."""

    HANDED_OUT = EXERCISE.replace("    return s;\n",
                                  "    LADDER_EXERCISE_DELAY(100);  // the check's\n    return s;\n")

    def setUp(self):
        self.tmp = pathlib.Path(tempfile.mkdtemp())
        (self.tmp / "gemm.cu").write_text(SOLUTION)
        self.handed = self.tmp / "exercise.cu"
        self.handed.write_text(self.HANDED_OUT)

    def tearDown(self):
        import shutil
        shutil.rmtree(self.tmp)

    def student(self, text):
        path = self.tmp / "student.cu"
        path.write_text(text)
        return exercises.frame_errors(path, self.handed)

    def test_fixed_line_passes_check(self):
        self.assertEqual(exercises.check_file(self.handed), [])
        regions = exercises.parse_regions(self.HANDED_OUT.splitlines(True), self.handed)
        self.assertEqual([r.fixed for r in regions], [False, True])

    def test_edit_inside_a_region_is_fine(self):
        self.assertEqual(self.student(self.HANDED_OUT.replace("    (void)a;\n", "    s = a * b;\n")), [])

    def test_removed_fixed_line_is_an_edit_outside(self):
        errors = self.student(self.HANDED_OUT.replace("    LADDER_EXERCISE_DELAY(100);  // the check's\n", ""))
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("removed outside the exercise regions", errors[0])

    def test_changed_fixed_line_is_an_edit_outside(self):
        errors = self.student(self.HANDED_OUT.replace("DELAY(100)", "DELAY(0)"))
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("edited outside the exercise regions", errors[0])

    def test_edit_outside_is_named_by_line(self):
        errors = self.student(self.HANDED_OUT.replace("return work(2, 3)", "return work(3, 3)"))
        self.assertEqual(len(errors), 1, errors)
        self.assertIn("student.cu:15", errors[0])

    def test_retitled_region_is_refused(self):
        errors = self.student(self.HANDED_OUT.replace("BEGIN: the loop", "BEGIN: my loop"))
        self.assertIn("not the exercise's", errors[0])

if __name__ == "__main__":
    unittest.main(verbosity=2)
