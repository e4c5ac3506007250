# SPDX-License-Identifier: Apache-2.0
"""Parallel scenario runner with a progress bar, shared by the demo and `make eval`.

Each job is one simulator process, so threads are enough to keep every core busy.
Results are cached under eval/build/sweep-cache/ keyed by the simulator's command
line and the binary's hash: a re-run after a model change recomputes everything,
an interrupted `make eval` with EVAL_RESUME=1 resumes.
"""
import concurrent.futures as cf
import hashlib
import json
import os
import shutil
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pylib"))
import ccfair_eval as ce  # noqa: E402

CACHE = os.environ.get("EVAL_CACHE", os.path.join(ce.EVAL, "build", "sweep-cache"))
# cache entries this process wrote, and cache hits on entries it did not: a run from an empty
# cache still hits its own entries (a section repeating another's runs), and is not resumed
_written = set()
_earlier = []


def jobs():
    return int(os.environ.get("EVAL_JOBS", os.cpu_count() or 1))


def snapshot_binary():
    """Copy the simulator aside so a rebuild during a long sweep cannot mix two binaries.

    EVAL_SIM=<path> pins an earlier snapshot (e.g. to regenerate a report from the cache)."""
    os.makedirs(CACHE, exist_ok=True)
    pinned = os.environ.get("EVAL_SIM")
    if pinned:
        with open(pinned, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()[:16], pinned
    with open(ce.SIM, "rb") as fh:
        h = hashlib.sha256(fh.read()).hexdigest()[:16]
    path = os.path.join(CACHE, "dumbbell-" + h)
    if not os.path.exists(path):
        shutil.copy2(ce.SIM, path + ".tmp")
        os.replace(path + ".tmp", path)
    return h, path


class Progress:
    def __init__(self, total, label):
        self.total, self.label, self.done, self.t0 = total, label, 0, time.time()
        self.tty = sys.stderr.isatty()
        self._draw()

    def step(self):
        self.done += 1
        self._draw()

    def _draw(self):
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        el = time.time() - self.t0
        eta = el / self.done * (self.total - self.done) if self.done else 0
        line = "%-10s [%s%s] %d/%d  %4.0fs elapsed, ~%4.0fs left" % (
            self.label, "#" * filled, "." * (width - filled), self.done, self.total, el, eta)
        if self.tty:
            sys.stderr.write("\r" + line + ("\n" if self.done == self.total else ""))
        elif self.done == self.total or self.done % max(1, self.total // 10) == 0:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def cache_path(binhash, s, sim, timeline_ms=0):
    """The cache file of scenario s: keyed by the binary's hash and the simulator's arguments
    (not the scenario's name, nor the simulator's path)."""
    key = hashlib.sha256((binhash + "\0" + "\0".join(ce.sim_args(s, timeline_ms, sim)[1:]))
                         .encode()).hexdigest()[:24]
    return os.path.join(CACHE, key + ".json")


def run_many(scenarios, label="sweep", timeline_ms=0):
    """Run validated scenarios in parallel.

    Returns (results in input order, wall seconds, number of runs executed rather than cached)."""
    binhash, sim = snapshot_binary()
    t0 = time.time()
    executed = []
    bar = Progress(len(scenarios), label)

    def one(s):
        path = cache_path(binhash, s, sim, timeline_ms)
        if os.path.exists(path):
            with open(path) as fh:
                res = json.load(fh)
            res["name"] = s["name"]  # the key covers what was simulated, not the label
            if path not in _written:
                _earlier.append(path)
        else:
            res = ce.run(s, timeline_ms, sim)
            executed.append(1)
            _written.add(path)
            tmp = "%s.%d.tmp" % (path, threading.get_ident())  # two threads may run one scenario
            with open(tmp, "w") as fh:
                json.dump(res, fh)
            os.replace(tmp, path)
        bar.step()
        return res

    with cf.ThreadPoolExecutor(max_workers=jobs()) as ex:
        results = list(ex.map(one, scenarios))
    return results, time.time() - t0, len(executed)


def from_earlier():
    """Cache hits, so far in this process, on entries an earlier invocation wrote (0: not resumed)."""
    return len(_earlier)
