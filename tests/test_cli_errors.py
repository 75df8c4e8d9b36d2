#!/usr/bin/env python3
"""The command lines refuse bad arguments the way common/library/README.md promises: exit code 2 and a
message that says what is wrong, before anything touches a GPU (so on any machine, GPU or
not). A crash, a hang or another exit code fails, and so does a message that does not say
what to fix. Also: a run that writes no row leaves no CSV behind, and without a GPU every
program says so in the same words.

    test_cli_errors.py <step-6 executable> <step-1 executable> <ladder-plan executable>
                       <ladder-layout executable> <ladder-ring executable> <ladder-probe executable>
"""
import os
import re
import subprocess
import sys
import tempfile

step6, step1, plan, layout, ring, probe = sys.argv[1:7]
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
    # One valid range, whatever the number: 0 is not "1 to 2147418112" and 19 "20 to 100000".
    (["--runs", "0"], r"--runs must be from 20 \(the median of fewer runs is noise\) to 100000, not '0'"),
    (["--runs", "19"], r"--runs must be from 20 \(the median of fewer runs is noise\) to 100000, not '19'"),
    # A shape is all three sizes: one alone is not 64x4096x4096.
    (["--m", "64"], r"--m without --n and --k: give --m, --n and --k together"),
    (["--n", "64", "--k", "64"], r"--n and --k without --m: give --m, --n and --k together"),
    (["--seed", " -1"], r"--seed must be a whole number .*' -1'"),
    (["--seed", "-1"], r"--seed must be a whole number"),
    (["--seed", "+7"], r"--seed must be a whole number"),
    (["--reference", "cpu", "--m", "2000000000", "--n", "2000000000", "--k", "8"],
     r"--reference cpu is for small shapes"),
    (["--reference", "fp64"], r"--reference must be cublas, cpu or gpu"),
    (["--variant", "foo"], r"no variant 'foo' \(variants of step 6: cooperative \(default\), pingpong\)"),
    (["--variant", b"\xff\xfe".decode("latin-1")], r"no variant '\\xff\\xfe'"),
    (["--csv", "/nonexistent-directory/bench.csv"], r"--csv: cannot open '/nonexistent-directory/bench.csv'"),
    (["--frobnicate"], r"unknown argument '--frobnicate'"),
]] + [(step1, ["--variant", "pingpong"], r"no variant 'pingpong' \(variants of step 1: only the default\)")]
expect([step6, "--help"], 0, r"Variants of step 6 \(--variant\): cooperative \(default\), pingpong", "stdout")
expect([step1, "--help"], 0, r"Variants of step 1 \(--variant\): only the default", "stdout")

# ladder-plan takes what the step executables take: the variants the steps register (listed
# from the registry, as step-6 --help lists them) and the sizes every step accepts.
step6_variants = subprocess.run([step6, "--help"], capture_output=True, text=True).stdout
step6_variants = re.search(r"Variants of step 6 \(--variant\): (.*)", step6_variants).group(1)
bad_args += [(plan, args, pattern) for args, pattern in [
    (["--step", "7:CG"], r"--step 7:CG: step 7 has no variant 'CG' \(variants of step 7: \S+ \(default\)"),
    (["--step", "6:nosuch"], r"--step 6:nosuch: step 6 has no variant 'nosuch' \(variants of step 6: " +
     re.escape(step6_variants) + r"\)"),
    (["--k", "7"], r"--k must be a multiple of 8 \(rows of whole 16-byte chunks\), not 7"),
    (["--m", "2147483647"], r"--m must be a whole number from 1 to 2147418112, not '2147483647'"),
    (["--n", "2147418113"], r"--n must be a whole number from 1 to 2147418112"),
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
# ladder-ring: a fault or a cluster size that changes nothing in the step's schedule would
# report the correct schedule as "ok".
bad_args += [(ring, args, pattern) for args, pattern in [
    (["--bogus"], r"unknown option --bogus"),
    (["--step"], r"missing value after --step"),
    (["--step", "4", "--fault", "nosuch"], r"unknown fault nosuch"),
    (["--step", "4", "--fault", "no-multicast"], r"--fault no-multicast changes nothing in step 04 .*faults that do: "),
    (["--step", "3", "--fault", "empty-parity"], r"--fault empty-parity changes nothing in step 03 .*faults that do: "),
    (["--step", "6", "--fault", "local-release"], r"--fault local-release changes nothing in step 06"),
    (["--step", "7", "--cluster", "1", "--fault", "no-multicast"], r"--fault no-multicast changes nothing in step 07 .*cluster 1"),
    (["--step", "4", "--k-blocks", "1", "--fault", "no-flip"], r"--fault no-flip changes nothing .* with 1 k-block "),
    (["--step", "4", "--cluster", "2"], r"--cluster is step 7's alone: step 4 runs one CTA"),
    # Bounded so that every run ends in seconds (1000 k-blocks ran for a minute with no output).
    (["--step", "4", "--k-blocks", "1000"], r"--k-blocks must be 1\.\.64"),
    (["--step", "4", "--k-blocks", "100000"], r"--k-blocks must be 1\.\.64"),
    (["--step", "4", "--seeds", "10000000"], r"--seeds must be 1\.\.100000"),
    (["--step", "7", "--k-blocks", "64", "--seeds", "100000"],
     r"--seeds x --k-blocks must be at most 1000000 \(100000 x 64 would run for minutes\)"),
]]
# ladder-probe checks where it will write before it measures (a minute of GPU time), with or
# without a GPU.
bad_args += [(probe, args, pattern) for args, pattern in [
    (["--out", "/nonexistent-directory/machine.json"], r"--out /nonexistent-directory/machine.json: folder "
     r"'/nonexistent-directory' does not exist; nothing measured"),
    (["--out", "/"], r"--out /: '/' names a folder, not a file"),
    (["--out", "/proc"], r"--out /proc: '/proc' is a folder"),
    (["--bogus"], r"unknown or incomplete argument '--bogus'"),
    (["--clock-trace", "/nonexistent-directory/trace.csv"], r"--clock-trace /nonexistent-directory/trace.csv: "
     r"folder '/nonexistent-directory' does not exist; nothing measured"),
    (["--clock-trace"], r"unknown or incomplete argument '--clock-trace'"),
    (["--out", "/tmp/ladder-probe-machine.json", "--clock-trace", "/tmp/ladder-probe-trace.csv"],
     r"--clock-trace writes no machine file; give --out or --clock-trace"),
]]
expect([ring, "--help"], 0, r"^usage: ladder-ring --step", "stdout")
expect([ring, "--step", "4", "--fault", "empty-parity"], 1, r"(race|hang): ", "stdout")  # a fault that applies is found

# ladder-plan reads a machine file field by field: a value no GPU has is refused with its key
# and range, exit 2, never a crash (an sm_count of 1 or 0.5 once divided by zero, 1e30 printed
# "-2147483648 SMs").
MACHINE = {"sm_count": 132, "sm_clock_under_load_mhz": 1980, "mma_sync_flop_per_clk_per_sm": 2450,
           "wgmma_flop_per_clk_per_sm": 3890, "dram_tbps": 3.35, "l2_tma_tbps": 9, "l2_cp_async_tbps": 9,
           "tma_latency_ns": 250, "tma_one_sm_gbps": 220, "cp_async_latency_ns": 250, "mbarrier_round_trip_ns": 20,
           "store16_tbps": 4.3, "store4_tbps": 4.5, "tma_store_tbps": 3.4, "launch_us": 4}
POWER = {"sm_clock_max_mhz": 1980, "power_limit_w": 700, "power_idle_w": 126, "power_busy_w": 190,
         "power_wgmma_random_w": 1200, "power_wgmma_zero_w": 700, "power_mma_sync_random_w": 1700,
         "power_mma_sync_zero_w": 1000}


def machine_file(folder, name, **changes):
    constants = dict(MACHINE, **changes)
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as f:
        f.write('{\n  "device": "test",\n  "constants": {\n' + ",\n".join(
            f'    "{k}": {{"value": {v}, "unit": "", "measured": true, "how": ""}}' for k, v in constants.items()
            if v is not None) + "\n  }\n}\n")
    return path


machine_dir = tempfile.mkdtemp()
for name, changes, pattern in [
    ("sm1", {"sm_count": 1}, r'"sm_count" is 1; it must be a whole number from 4 to 4096'),
    ("smhalf", {"sm_count": 0.5}, r'"sm_count" is 0.5; it must be a whole number from 4 to 4096'),
    ("smhuge", {"sm_count": "1e30"}, r'"sm_count" is 1e\+30; it must be a whole number from 4 to 4096'),
    ("clock0", {"sm_clock_under_load_mhz": 0}, r'"sm_clock_under_load_mhz" is 0; it must be a number from 1 to 10000'),
    ("nan", {"dram_tbps": "nan"}, r'"dram_tbps" is missing or has no numeric "value"'),
    ("missing", {"launch_us": None}, r'"launch_us" is missing'),
    ("clusters", {"resident_clusters_of_4": 40}, r'"resident_clusters_of_4" is 40, more clusters of 4 than 132 SMs hold'),
    ("partial_power", {"power_limit_w": 700}, r"the power model needs sm_clock_max_mhz, power_limit_w"),
    ("idle_above_limit", dict(POWER, power_idle_w=800), r"the power model needs .*power_idle_w \(below the limit\)"),
    ("negative_power", dict(POWER, power_busy_w=-5), r'"power_busy_w" is -5; it must be a number from 0 to 100000'),
]:
    bad_args.append((plan, ["--step", "7", "--machine", machine_file(machine_dir, name, **changes)], pattern))
    bad_args.append((plan, ["--compare", "/dev/null", "--machine", machine_file(machine_dir, name, **changes)], pattern))
bad_args.append((plan, ["--inputs", "ones"], r"--inputs must be uniform or zero, not 'ones'"))
# A good machine file, with and without the power model, plans.
for good in (machine_file(machine_dir, "good"), machine_file(machine_dir, "good_power", **POWER)):
    expect([plan, "--step", "7", "--machine", good], 0, r"prediction", "stdout")
    expect([plan, "--step", "7", "--machine", good, "--inputs", "zero"], 0, r"prediction", "stdout")
expect([plan, "--step", "7", "--machine", machine_file(machine_dir, "zeros", **POWER), "--inputs", "zeros"], 0,
       r"tensor pipe \d+% busy on zero operands", "stdout")

# --compare prints "not modeled" for a row the planner has no model of (step 01's naive loop),
# never a number, and counts it nowhere; a row of a modeled step gets a prediction.
bench = os.path.join(machine_dir, "bench.csv")
with open(bench, "w") as f:
    f.write("step,name,M,N,K,ms,sm_clock_mhz,inputs\n1,naive,512,512,512,0.554,1980,uniform\n"
            "7,clusters_multicast:cluster2,4096,4096,4096,0.186,1650,uniform\n"
            "7,clusters_multicast:cluster2@zero,4096,4096,4096,0.157,1965,zero\n")
power_file = machine_file(machine_dir, "compare_power", **POWER)
expect([plan, "--compare", bench, "--machine", power_file], 0,
       r"1 naive +512x512x512 +554\.0 +- +- +1980 +- +- +- +- +not modeled\n", "stdout")
expect([plan, "--compare", bench, "--machine", power_file], 0,
       r"within 15% on squares >= 2048\^3 and the LLM shapes: \d of 2 ", "stdout")
expect([plan, "--compare", bench, "--machine", power_file], 0, r"rows below 97% of 1980 MHz: \d of 1 ", "stdout")

for executable, args, pattern in bad_args:
    # Raw bytes: a str argument would be re-encoded as UTF-8.
    expect([executable] + [a.encode("latin-1") for a in args], 2, pattern)

with tempfile.TemporaryDirectory() as tmp:
    # A CSV is probed for writing before the run, and a probe that created it removes it again.
    new_csv = os.path.join(tmp, "new.csv")
    expect([step1, "--csv", new_csv, "--timeline", os.path.join(tmp, "t.csv")], 2, r"--timeline")
    if os.path.exists(new_csv):
        failures.append("a refused run left its --csv file behind")
        print("FAIL a refused run left its --csv file behind")
    # A benchmark without a GPU writes no row and leaves no file; with one, the file has rows.
    done = subprocess.run([step1, "--bench", "--csv", new_csv, "--m", "64", "--n", "64", "--k", "64"],
                          capture_output=True, text=True, timeout=600)
    rows = open(new_csv).read().splitlines() if os.path.exists(new_csv) else None
    ok = (done.returncode == 77 and rows is None) or (done.returncode == 0 and rows and len(rows) >= 2)
    print(("ok   " if ok else "FAIL ") + f"step-1 --bench --csv NEW: exit {done.returncode}, file: {rows and len(rows)} lines")
    if not ok:
        failures.append(f"step-1 --bench --csv NEW: exit {done.returncode}, file lines: {rows}")

# Without a GPU (or a driver), the step executables and ladder-probe say so in the same words
# and exit 77; with one there is nothing to compare (and ladder-probe would measure for a minute).
done = subprocess.run([step1, "--check", "--m", "64", "--n", "64", "--k", "64"], capture_output=True, text=True,
                      timeout=600)
if done.returncode == 77:
    step_says = re.match(r"SKIP: step-1: (no usable CUDA GPU: .+)", done.stdout)
    expect([probe], 77, r"^SKIP: ladder-probe: " + re.escape(step_says.group(1)) if step_says else "a step's words",
           "stdout")
    if not step_says:
        failures.append(f"step-1 without a GPU: {done.stdout!r}")
        print(f"FAIL step-1 without a GPU: {done.stdout!r}")
else:
    print(f"skip: the no-GPU messages (step-1 exited {done.returncode}: a GPU is here)")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
