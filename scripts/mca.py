#!/usr/bin/env python3
"""Models the hottest loops of one `gamecount solve` on CPUs that are not at hand.

The run is profiled instruction by instruction where it can run here (x86-64 under
callgrind, aarch64 under qemu-user), its hottest straight runs of code are cut out of the
disassembly, and llvm-mca's scheduling model of each named CPU gives their cycles per
iteration. A model, not a measurement: llvm-mca assumes every load hits L1 and knows no
clock, and its tables are approximations of each core. It answers "how many cycles does
this loop need on a Neoverse N1", for a backend that no machine here can time.

    scripts/mca.py --arch aarch64 --cpus neoverse-n1,apple-m1 -- kayles --pins 1000 --simd neon --threads 1
    scripts/mca.py --arch x86_64 --cpus znver4,znver3 -- kayles --pins 1000 --simd avx2 --threads 1
    scripts/mca.py --out results/mca.csv --arch x86_64 --static group_t_sum_on:vpdpwssd

`--static FUNCTION:INSTRUCTION` models, without running anything, every innermost
branch-free loop that holds INSTRUCTION in the functions whose name contains FUNCTION: for
a level that neither the CPU nor an emulator here runs (`avx2-vnni`:
`--static group_t_sum_on:vpdpwssd`).

How far to trust it: on the Zen 4, the one modeled core at hand, the AVX2 power-sum loop
of cards and the AVX2 sliding-window loop of kayles came within 7% of their measured
cycles, bound by throughput; a chain of two `vpdpwssd` per sum it put 25% under
(docs/design/simd.md, "Modeled loops"). Read it for which unit a loop loads most and for
how one loop compares across cores, not for times.

Output: one CSV row per loop and CPU, printed, or appended to `--out FILE` (replaced
whole by a temporary file renamed over it; FILE must be missing or a regular file). `iterations` is how often the loop's body ran in the
profiled run, `share` the fraction of the run's instructions it executed; `cycles` is
llvm-mca's steady-state cycles per iteration (loop-carried dependences included),
`throughput` the bound of its execution resources alone (llvm-mca's "Block
RThroughput"). Installs llvm-mca 19 (Debian's `llvm-19`) when it is missing; the aarch64
tools come from `scripts/aarch64-tools.sh`.
"""

import argparse
import collections
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MCA = "llvm-mca-19"
# A straight run of the profile: neighbours executed at least this fraction of the
# hottest instruction's count belong to it (a rarely taken exit inside the loop does not
# cut the body in two; an enclosing loop runs far less often).
SAME_RUN = 0.9
# Shorter runs are not loops worth a model: a `rep movs`, which the profile counts once
# per element, or a call's few instructions.
MIN_RUN = 4


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def ensure_mca():
    if shutil.which(MCA):
        return
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    subprocess.run(sudo + ["apt-get", "update", "-qq"], check=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "install", "-y", "-qq", "llvm-19"], check=True, env=env)


def build(arch):
    env = dict(os.environ)
    cmd = ["cargo", "build", "--release", "--quiet", "--bin", "gamecount"]
    if arch == "aarch64":
        subprocess.run(["bash", "scripts/aarch64-tools.sh"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        env["CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER"] = "aarch64-linux-gnu-gcc"
        env["CC_aarch64_unknown_linux_gnu"] = "aarch64-linux-gnu-gcc"
        cmd += ["--target", "aarch64-unknown-linux-gnu"]
        binary = "target/aarch64-unknown-linux-gnu/release/gamecount"
    else:
        binary = "target/release/gamecount"
    subprocess.run(cmd, check=True, cwd=ROOT, env=env)
    return os.path.join(ROOT, binary)


def profile_x86(binary, solve):
    """Executions per instruction address, from callgrind's per-instruction counts."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            ["valgrind", "-q", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={out}", binary, "solve"]
            + solve,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        counts, addr, call_line = collections.Counter(), 0, False
        position = re.compile(r"^(0x[0-9a-f]+|[+-]\d+|\*)$")
        with open(out) as f:
            for line in f:
                parts = line.split()
                if line.startswith("calls="):
                    # The next cost line is the call's inclusive cost, not this address's.
                    call_line = True
                    continue
                if len(parts) < 2 or not position.match(parts[0]):
                    continue
                p = parts[0]
                addr = int(p, 16) if p.startswith("0x") else addr + int(p) if p[0] in "+-" else addr
                if call_line:
                    call_line = False
                    continue
                # Ir is the last number of a cost line ("addr line Ir" or "addr Ir").
                counts[addr] += int(parts[-1])
        return counts


def profile_aarch64(binary, solve):
    """Executions per instruction address (relative to the binary's load address), from
    qemu-user's log of every instruction run alone, counted as it streams."""
    cmd = ["qemu-aarch64", "-cpu", "cortex-a53", "-L", "/usr/aarch64-linux-gnu", "-singlestep"]
    cmd += ["-d", "page,exec,nochain", binary, "solve"] + solve
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counts, base = collections.Counter(), None
    for line in proc.stderr:
        if line.startswith("Trace"):
            # Trace 0: 0xHOST [TB flags/GUEST PC/...]
            counts[int(line.split("[", 1)[1].split("/", 2)[1], 16)] += 1
        elif line.startswith("start_code") and base is None:
            base = int(line.split()[1], 16)
    if proc.wait() != 0 or base is None:
        sys.exit("mca: the run under qemu failed")
    return collections.Counter({a - base: c for a, c in counts.items() if a >= base})


def disassemble(arch, binary, start, stop):
    """(address, instruction text) in address order, for [start, stop)."""
    tool = "aarch64-linux-gnu-objdump" if arch == "aarch64" else "objdump"
    text = sh([tool, "-d", "--no-show-raw-insn", f"--start-address={start}", f"--stop-address={stop}", binary])
    out = []
    for line in text.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)$", line)
        if m and m.group(2).strip() and not m.group(2).startswith("("):
            # Drop objdump's comments ("//" on aarch64, where "#" starts an immediate).
            ins = m.group(2).split("//" if arch == "aarch64" else "#")[0]
            out.append((int(m.group(1), 16), ins.split("<")[0].strip()))
    return out


BRANCH = {
    "x86_64": re.compile(r"^j[a-z]+\s"),
    "aarch64": re.compile(r"^(b\.[a-z]+|cbn?z|tbn?z|b)\s"),
}


def for_mca(arch, body):
    """The run's instructions as llvm-mca input: every branch retargeted to the top."""
    lines = [".Lloop:" if arch == "x86_64" else "Lloop:"]
    for _, ins in body:
        if BRANCH[arch].match(ins):
            ops = ins.split(None, 1)[1].split(",")
            ops[-1] = ".Lloop" if arch == "x86_64" else "Lloop"
            ins = ins.split(None, 1)[0] + " " + ",".join(ops)
        lines.append(ins)
    return "\n".join(lines) + "\n"


def model(arch, cpu, asm):
    with tempfile.NamedTemporaryFile("w", suffix=".s") as f:
        f.write(asm)
        f.flush()
        out = subprocess.run(
            [MCA, f"-mtriple={arch}", f"-mcpu={cpu}", "-iterations=400", f.name], text=True, capture_output=True
        )
    if out.returncode != 0:
        return None
    get = lambda key: float(re.search(rf"^{key}:\s+([0-9.]+)", out.stdout, re.M).group(1))
    return get("Total Cycles") / get("Iterations"), get("Block RThroughput"), busiest(out.stdout)


def busiest(report):
    """The execution resource llvm-mca loads most per iteration, as `name:cycles`."""
    names = dict(re.findall(r"^\[([0-9.]+)\]\s+- (\S+)", report, re.M))
    lines = report.split("Resource pressure per iteration:\n", 1)[1].splitlines()
    units = [u.strip("[]") for u in lines[0].split()]
    loads = [0.0 if v == "-" else float(v) for v in lines[1].split()]
    unit, load = max(zip(units, loads), key=lambda p: p[1])
    return f"{names.get(unit, unit)}:{load:.2f}"


def hot_runs(arch, binary, counts, loops):
    """The `loops` straight runs that executed the most instructions: each grown from the
    hottest address not yet taken, over neighbours run nearly as often."""
    total = sum(counts.values())
    taken, runs = set(), []
    for addr, hottest in counts.most_common():
        if len(runs) == loops or hottest < 1000:
            break
        if addr in taken:
            continue
        code = disassemble(arch, binary, max(addr - 4096, 0), addr + 4096)
        at = next((i for i, (a, _) in enumerate(code) if a == addr), None)
        if at is None:
            taken.add(addr)
            continue
        lo = hi = at
        near = lambda i: code[i][0] not in taken and counts.get(code[i][0], 0) >= SAME_RUN * hottest
        while lo > 0 and near(lo - 1):
            lo -= 1
        while hi + 1 < len(code) and near(hi + 1):
            hi += 1
        body = code[lo : hi + 1]
        taken.update(a for a, _ in body)
        if len(body) < MIN_RUN:
            continue
        share = sum(counts.get(a, 0) for a, _ in body) / total
        closed = bool(BRANCH[arch].match(body[-1][1]))
        runs.append((body, hottest, share, closed))
    return runs


def static_loops(arch, binary, pattern):
    """Innermost branch-free loops holding `instruction`, in functions named `name`
    (pattern `name:instruction`)."""
    name, instruction = pattern.split(":", 1)
    nm = "aarch64-linux-gnu-nm" if arch == "aarch64" else "nm"
    runs = []
    for line in sh([nm, "-S", "-C", binary]).splitlines():
        f = line.split(None, 3)
        if len(f) < 4 or f[2].lower() != "t" or name not in f[3]:
            continue
        start, size = int(f[0], 16), int(f[1], 16)
        code = disassemble(arch, binary, start, start + size)
        index = {a: i for i, (a, _) in enumerate(code)}
        for i, (_, ins) in enumerate(code):
            if not BRANCH[arch].match(ins):
                continue
            target = re.search(r"([0-9a-f]+)\s*$", ins)
            j = index.get(int(target.group(1), 16)) if target else None
            if j is None or j >= i:
                continue
            body = code[j : i + 1]
            if any(BRANCH[arch].match(b) for _, b in body[:-1]) or not any(instruction in b for _, b in body):
                continue
            runs.append((body, 0, 0.0, True))
    return runs


HEADER = "run,arch,loop,address,instructions,iterations,share,closed,cpu,cycles,throughput,busiest,mca,commit,date"


def checked_output(path):
    """`path` resolved to the file a run may replace: missing, a regular file, or a
    symlink to one (its target); anything else ends the run before any work, exit 2."""
    target = os.path.realpath(path)
    if os.path.exists(target) and not os.path.isfile(target):
        sys.stderr.write(f"mca: {path}: not a regular file; left as it is\n")
        sys.exit(2)
    return target


def write_rows(target, rows):
    """Appends `rows` to `target` (with the header if it is new) by a temporary file
    beside it renamed over it: a failed run leaves `target` as it was."""
    old = open(target).read() if os.path.isfile(target) else HEADER + "\n"
    fd, temp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".gc.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(old + "".join(r + "\n" for r in rows))
        if os.path.isfile(target):
            os.chmod(temp, os.stat(target).st_mode & 0o7777)
        os.replace(temp, target)
    finally:
        if os.path.exists(temp):
            os.remove(temp)


def digest(binary):
    with open(binary, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def profile(a, binary):
    """The run's counts per address; from `--counts` when it holds this binary's."""
    stamp = f"# {digest(binary)}"
    if a.counts and os.path.exists(a.counts):
        with open(a.counts) as f:
            lines = f.read().splitlines()
        if lines and lines[0] == stamp:
            return collections.Counter({int(k, 16): int(v) for k, v in (line.split() for line in lines[1:])})
    counts = (profile_aarch64 if a.arch == "aarch64" else profile_x86)(binary, a.solve)
    if a.counts:
        with open(a.counts, "w") as f:
            f.write(stamp + "\n")
            f.writelines(f"{k:#x} {v}\n" for k, v in counts.items())
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--arch", choices=["x86_64", "aarch64"], default="x86_64")
    ap.add_argument("--cpus", default="znver4,znver3,alderlake")
    ap.add_argument("--loops", type=int, default=4, help="how many of the hottest runs to model")
    ap.add_argument("--static", metavar="FUNCTION:INSTRUCTION", help="model loops found in the code, not a run")
    ap.add_argument("--counts", metavar="FILE", help="the profile's counts, kept for the same binary")
    ap.add_argument("--out", metavar="FILE", help="append the rows to FILE (CSV) instead of printing them")
    ap.add_argument("solve", nargs="*", help="the options of `gamecount solve`")
    a = ap.parse_args()
    if not a.static and not a.solve:
        ap.error("give the solve to profile after --, or --static")
    target = checked_output(a.out) if a.out else None
    if a.counts:
        a.counts = os.path.abspath(a.counts)
    os.chdir(ROOT)
    ensure_mca()
    binary = build(a.arch)
    runs = static_loops(a.arch, binary, a.static) if a.static else hot_runs(a.arch, binary, profile(a, binary), a.loops)
    what = a.static or " ".join(a.solve)
    version = re.search(r"version (\S+)", sh([MCA, "--version"])).group(1)
    commit = sh(["git", "rev-parse", "--short", "HEAD"]).strip()
    if sh(["git", "status", "--porcelain", "--untracked-files=no"]).strip():
        commit += "+dirty"
    date = time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime())
    rows = []
    for n, (body, iterations, share, closed) in enumerate(runs):
        asm = for_mca(a.arch, body)
        for cpu in a.cpus.split(","):
            r = model(a.arch, cpu, asm)
            modeled = ",," if r is None else f"{r[0]:.2f},{r[1]:.2f},{r[2]}"
            rows.append(
                f'"{what}",{a.arch},{n},{body[0][0]:#x},{len(body)},{iterations},{share:.3f},{int(closed)},{cpu},'
                f"{modeled},llvm-mca {version},{commit},{date}"
            )
        if os.environ.get("MCA_SHOW"):
            sys.stderr.write(f"# loop {n}\n{asm}\n")
    if target:
        write_rows(target, rows)
    else:
        print(HEADER)
        print("\n".join(rows))


if __name__ == "__main__":
    main()
