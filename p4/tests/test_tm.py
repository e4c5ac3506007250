# SPDX-License-Identifier: Apache-2.0
"""ccfair_tm.py's plan: each queue's DWRR weight is params' queues.dwrr_weights[q], the weights
the ONOS app's isolated layout picks its queues by (docs/algorithm.md D18); bad weights stop it."""
import copy
import importlib.util
import json
import os
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
P4 = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location("ccfair_tm", os.path.join(P4, "tm", "ccfair_tm.py"))
tm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tm)
with open(os.path.join(P4, "..", "params", "ccfair.json")) as f:
    PARAMS = json.load(f)


class TmPlan(unittest.TestCase):
    def weights(self, p, sched="dwrr"):
        p = copy.deepcopy(p)
        p["queues"]["scheduler"] = sched
        return {op[2]: op[3]["dwrr_weight"] for op in tm.plan(p, "tofino", [1]) if op[0] == "queue_sched"}

    def test_each_queue_gets_its_weight(self):
        self.assertEqual([self.weights(PARAMS)[q] for q in range(PARAMS["queues"]["per_port"])],
                         PARAMS["queues"]["dwrr_weights"])

    def test_rr_ignores_them(self):
        self.assertEqual(set(self.weights(PARAMS, "rr").values()), {1})

    def test_bad_weights_stop_the_plan(self):
        for bad in ([1] * 15, [1] * 15 + [0], [1] * 15 + [1024], None):
            p = copy.deepcopy(PARAMS)
            p["queues"]["dwrr_weights"] = bad
            with self.assertRaises(SystemExit) as cm:
                tm.plan(p, "tofino", [1])
            self.assertIn("queues.dwrr_weights must list queues.per_port (16) integers in 1..1023", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
