#!/usr/bin/env python3
"""Counts instructions of `navlab bake MESH --partition P --quiet` under valgrind callgrind for
every reference mesh x partition and writes them beside the C++ counts
(benches/perf_callgrind.json). Instruction counts are stable run to run, unlike wall time on a
shared machine. Usage: benches/callgrind.py [--bin target/release/navlab] [CASE ...]"""
import json, os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ref_dir = os.environ.get("NAVLAB_REFERENCE_DIR", os.path.join(root, "..", "shared", "reference"))
args = sys.argv[1:]
binary = os.path.join(root, "target", "release", "navlab")
if "--bin" in args:
    i = args.index("--bin"); binary = args[i + 1]; del args[i:i + 2]
cpp = json.load(open(os.path.join(ref_dir, "perf_callgrind.json")))["cases"]
out_path = os.path.join(root, "benches", "perf_callgrind.json")
result = json.load(open(out_path)) if os.path.exists(out_path) else {}
result.setdefault("what", "instructions (Ir) of one `navlab bake MESH --partition P --quiet` per process "
                  "(OBJ load + partitioned mesh + the whole build + Detour tile data), beside the C++ main_Ir")
cases = result.setdefault("cases", {})
for case in args or sorted(cpp):
    mesh, partition = case.rsplit("_", 1)
    with tempfile.TemporaryDirectory() as tmp:
        out_file = os.path.join(tmp, "callgrind.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", binary, "bake",
                        os.path.join(ref_dir, "meshes", mesh + ".obj"), "--partition", partition, "--quiet"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = open(out_file).read()
    ours = int(re.search(r"^summary:\s*(\d+)", text, re.M).group(1))
    theirs = cpp[case]["main_Ir"]
    cases[case] = {"ours_Ir": ours, "cpp_main_Ir": theirs, "ratio": round(ours / theirs, 3)}
    print(f"{case:24} ours {ours:>13,}  C++ {theirs:>13,}  ratio {ours / theirs:.3f}")
json.dump(result, open(out_path, "w"), indent=1)
