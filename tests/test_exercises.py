#!/usr/bin/env python3
"""Unit test of common/exercises.py on the small fixtures in tests/fixtures/exercises
(check) and on files made in a temporary folder (sync). CPU only; run by ctest."""
import pathlib
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "common"))
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


if __name__ == "__main__":
    unittest.main(verbosity=2)
