#!/usr/bin/env python3
"""Cold start to first paint (median of N) and idle memory (total PSS) of the desktop app.

Run through scripts/bench-startup.sh, which builds the release binary and provides Xvfb.
First paint: the UI calls `record_first_paint` after its first frame; with
SWITCHYARD_EXIT_ON_FIRST_PAINT=1 the app prints `first_paint_ms=N` and exits. We report both
the app's own figure (from main() to first frame) and the wall time from spawn to exit.
Memory: the app idles for IDLE_SECONDS, then the PSS of the app and every descendant
(WebKitWebProcess, WebKitNetworkProcess) is summed from /proc/PID/smaps_rollup.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "5"))
IDLE_SECONDS = float(os.environ.get("IDLE_SECONDS", "8"))


def first_paint(binary: str) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, SWITCHYARD_HOME=home, SWITCHYARD_EXIT_ON_FIRST_PAINT="1",
                   XDG_DATA_HOME=os.path.join(home, "xdg"))
        start = time.perf_counter()
        out = subprocess.run([binary], env=env, capture_output=True, text=True, timeout=60)
        wall = (time.perf_counter() - start) * 1000
        for line in out.stdout.splitlines():
            if line.startswith("first_paint_ms="):
                return int(line.split("=", 1)[1]), wall
        sys.exit(f"no first_paint_ms line; stderr:\n{out.stderr[-2000:]}")


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def pss_kb(pid: int) -> tuple[str, int]:
    with open(f"/proc/{pid}/comm") as f:
        name = f.read().strip()
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                return name, int(line.split()[1])
    return name, 0


def idle_memory(binary: str) -> None:
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, SWITCHYARD_HOME=home, XDG_DATA_HOME=os.path.join(home, "xdg"))
        proc = subprocess.Popen([binary], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            time.sleep(IDLE_SECONDS)
            total = 0
            for pid in descendants(proc.pid):
                try:
                    name, kb = pss_kb(pid)
                except OSError:
                    continue
                total += kb
                print(f"  {name:<24} {kb / 1024:7.1f} MB PSS")
            print(f"idle memory: {total / 1024:.1f} MB total PSS (target < 320 MB)")
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def main() -> None:
    binary = sys.argv[1]
    app_ms, wall_ms = [], []
    for i in range(RUNS):
        app, wall = first_paint(binary)
        app_ms.append(app)
        wall_ms.append(wall)
        print(f"run {i + 1}: first paint {app} ms after main(), {wall:.0f} ms spawn-to-exit")
    print(f"cold start to first paint: median {statistics.median(app_ms):.0f} ms "
          f"(spawn-to-exit median {statistics.median(wall_ms):.0f} ms) over {RUNS} runs "
          "(target < 1000 ms)")
    idle_memory(binary)


if __name__ == "__main__":
    main()
