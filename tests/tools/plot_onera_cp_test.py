#!/usr/bin/python3
"""tools/plot_onera_cp.py against a walls.csv made from the experiment itself: Schmitt & Charpin's
taps placed on the wing's planform (x = x_LE(y) + c(y) x/c, y = eta b), densely interpolated along
each side, must come back at the taps with an RMS near zero at every station (the tool's station
strips, local chords and side split are right); a walls.csv without the columns is refused with exit
code 2. Run by ctest (tests/CMakeLists.txt); exit code 77 skips where matplotlib is missing."""
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("matplotlib missing: skipped")
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
TOOL = os.path.join(ROOT, "tools", "plot_onera_cp.py")
DATA = os.path.join(ROOT, "examples", "data", "onera_m6_cp_schmitt_charpin.csv")
B, C_ROOT = 1.1963, 0.8059
TAN_LE, TAN_TE = math.tan(math.radians(30.0)), math.tan(math.radians(15.8))


def main():
    with open(DATA) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    out = tempfile.mkdtemp(prefix="flowdg_onera_cp_")
    with open(os.path.join(out, "walls.csv"), "w") as f:
        f.write("boundary,x,y,z,x_over_c,angle,side,cp,cf,tau_x,tau_y,tau_z,heat_flux\n")
        for eta in sorted({float(r["station_eta"]) for r in rows}):
            y = eta * B
            c = C_ROOT - y * (TAN_LE - TAN_TE)
            for surface, side in (("upper", 1), ("lower", -1)):
                taps = sorted((float(r["x_over_c"]), float(r["cp"])) for r in rows
                              if float(r["station_eta"]) == eta and r["surface"] == surface)
                for (x0, p0), (x1, p1) in zip(taps, taps[1:]):
                    for k in range(40):
                        t = k / 40
                        xc = x0 + t * (x1 - x0)
                        f.write(f"wing,{y * TAN_LE + c * xc},{y},{0.05 * side * c},{xc},0,{side},{p0 + t * (p1 - p0)},0,0,0,0,0\n")
    result = subprocess.run([sys.executable, TOOL, out], capture_output=True, text=True)
    print(result.stdout, result.stderr)
    if result.returncode != 0:
        sys.exit(f"the tool failed: {result.returncode}")
    rms = [float(v) for v in re.findall(r"RMS\(Cp - experiment\) = ([0-9.]+)", result.stdout)]
    if len(rms) != 7:
        sys.exit(f"expected 7 stations, got {len(rms)}")
    if max(rms) > 0.015:
        sys.exit(f"the experiment's own Cp does not come back at its taps: RMS {rms}")
    for name in ("onera_cp.png", "onera_cp.csv"):
        if not os.path.exists(os.path.join(out, name)):
            sys.exit(f"no {name}")
    with open(os.path.join(out, "walls.csv"), "w") as f:
        f.write("boundary,x,y\nwing,0,0\n")
    bad = subprocess.run([sys.executable, TOOL, out], capture_output=True, text=True)
    if bad.returncode != 2 or "expected the columns" not in bad.stderr:
        sys.exit(f"a walls.csv without its columns: exit {bad.returncode}, {bad.stderr}")
    print("ok")


if __name__ == "__main__":
    main()
