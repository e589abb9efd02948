#!/usr/bin/env python3
"""Cold start to first paint and idle memory of Switchyard against an empty Tauri app.

Run through scripts/bench-startup.sh, which builds the release binaries (both apps and the CLI)
and provides Xvfb.
Both apps are measured in one run, alternating start by start, so the machine's state weighs
on both alike.

First paint: each UI calls its first-paint command after its first frame; with
SWITCHYARD_EXIT_ON_FIRST_PAINT=1 the app prints `first_paint_ms=N` (from main() to that frame)
and exits. The wall time from spawn to exit is reported too. A start slower than twice the
app's own fastest start counts as slow (WebKit's stall makes starts bimodal; against the
median, an app slow in half its starts would count none). The medians of the starts that
were not slow are compared too: that ratio holds still when the two apps stall unequally.

Memory: each app idles for IDLE_SECONDS on a fresh profile, then the PSS of the app and every
descendant (WebKitWebProcess, WebKitNetworkProcess) is summed from /proc/PID/smaps_rollup;
the median of MEMORY_RUNS samples per app. Switchyard is measured a second way too, on a
profile whose user hid the Models page's plot (its charting library is then never loaded);
the target's ratio is the fresh profile's.
"""
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "10"))
MEMORY_RUNS = int(os.environ.get("MEMORY_RUNS", "3"))
IDLE_SECONDS = float(os.environ.get("IDLE_SECONDS", "8"))
PAINT_TARGET = 1.5
MEMORY_TARGET = 1.1


def app_env(home: str) -> dict:
    return dict(os.environ, SWITCHYARD_HOME=home, SWITCHYARD_NO_BACKGROUND_REFRESH="1",
                XDG_DATA_HOME=os.path.join(home, "xdg"), XDG_CACHE_HOME=os.path.join(home, "cache"))


def first_paint(binary: str) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as home:
        env = dict(app_env(home), SWITCHYARD_EXIT_ON_FIRST_PAINT="1")
        start = time.perf_counter()
        out = subprocess.run([binary], env=env, capture_output=True, text=True, timeout=60)
        wall = (time.perf_counter() - start) * 1000
        for line in out.stdout.splitlines():
            if line.startswith("first_paint_ms="):
                return int(line.split("=", 1)[1]), wall
        sys.exit(f"{binary}: no first_paint_ms line; stderr:\n{out.stderr[-2000:]}")


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


def hide_plot(cli: str, home: str) -> None:
    """Makes `home` a profile whose user hid the Models plot (the CLI stores the preference
    the Hide plot button stores)."""
    out = subprocess.run([cli, "settings", "set", "ui.plot_hidden", "true"], env=app_env(home),
                         capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"{cli}: could not hide the plot; stderr:\n{out.stderr[-2000:]}")


def idle_memory(binary: str, hide_plot_with: str | None = None) -> tuple[float, dict[str, float]]:
    """Total PSS in MiB after IDLE_SECONDS, and MiB by process name."""
    # The app's WebKit processes may still be writing their caches as the app exits, so the
    # profile is removed only after its whole process group is gone, and a late write is no error.
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as home:
        if hide_plot_with:
            hide_plot(hide_plot_with, home)
        proc = subprocess.Popen([binary], env=app_env(home), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            time.sleep(IDLE_SECONDS)
            by_name: dict[str, float] = {}
            for pid in descendants(proc.pid):
                try:
                    name, kb = pss_kb(pid)
                except OSError:
                    continue
                by_name[name] = by_name.get(name, 0.0) + kb / 1024
            return sum(by_name.values()), by_name
        finally:
            stop_group(proc)


def stop_group(proc: subprocess.Popen) -> None:
    """TERM the app's process group, KILL what is left after 5 s, and wait until no member is."""
    os.killpg(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    while True:
        try:
            os.killpg(proc.pid, signal.SIGKILL if time.monotonic() > deadline else 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)


def main() -> None:
    apps = {"switchyard": sys.argv[1], "empty": sys.argv[2]}
    cli = sys.argv[3]
    paint: dict[str, list[int]] = {name: [] for name in apps}
    wall: dict[str, list[float]] = {name: [] for name in apps}
    for i in range(RUNS):
        order = list(apps) if i % 2 == 0 else list(reversed(apps))
        for name in order:
            ms, spawn = first_paint(apps[name])
            paint[name].append(ms)
            wall[name].append(spawn)
            print(f"start {i + 1:2} {name:<10} first paint {ms:5} ms (spawn to exit {spawn:5.0f} ms)")
    memory: dict[str, list[float]] = {name: [] for name in apps}
    hidden: list[float] = []
    detail: dict[str, dict[str, float]] = {}
    for i in range(MEMORY_RUNS):
        order = list(apps) if i % 2 == 0 else list(reversed(apps))
        for name in order:
            total, by_name = idle_memory(apps[name])
            memory[name].append(total)
            detail[name] = by_name
            print(f"idle  {i + 1:2} {name:<10} {total:6.1f} MiB PSS")
        total, _ = idle_memory(apps["switchyard"], hide_plot_with=cli)
        hidden.append(total)
        print(f"idle  {i + 1:2} {'switchyard, plot hidden':<10} {total:6.1f} MiB PSS")
    print()
    medians = {name: statistics.median(paint[name]) for name in apps}
    fast = {name: [ms for ms in paint[name] if ms <= 2 * min(paint[name])] for name in apps}
    for name in apps:
        slow = RUNS - len(fast[name])
        parts = ", ".join(f"{p} {mib:.0f}" for p, mib in sorted(detail[name].items()))
        print(f"{name:<10} first paint median {medians[name]:6.0f} ms "
              f"(spawn to exit {statistics.median(wall[name]):.0f} ms), slow starts {slow} of {RUNS}; "
              f"idle PSS median {statistics.median(memory[name]):6.1f} MiB ({parts})")
    paint_ratio = medians["switchyard"] / max(medians["empty"], 1)
    memory_ratio = statistics.median(memory["switchyard"]) / max(statistics.median(memory["empty"]), 1)
    verdict = lambda ratio, target: "within target" if ratio <= target else "over target"
    print(f"first paint ratio: {paint_ratio:.2f}x (target <= {PAINT_TARGET}x: {verdict(paint_ratio, PAINT_TARGET)})")
    fast_ratio = statistics.median(fast["switchyard"]) / max(statistics.median(fast["empty"]), 1)
    print(f"first paint ratio of the starts that were not slow: {fast_ratio:.2f}x")
    print(f"idle PSS ratio:    {memory_ratio:.2f}x (target <= {MEMORY_TARGET}x: {verdict(memory_ratio, MEMORY_TARGET)})")
    hidden_ratio = statistics.median(hidden) / max(statistics.median(memory["empty"]), 1)
    print(f"idle PSS ratio with the Models plot hidden by its user: {hidden_ratio:.2f}x "
          f"({statistics.median(hidden):.1f} MiB)")


if __name__ == "__main__":
    main()
