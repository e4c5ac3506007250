# SPDX-License-Identifier: Apache-2.0
"""check_port.py: the committed bmv2 P4Info agrees with the tofino one, and
a port that drifts (a width, a missing table) is reported."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
P4 = os.path.dirname(HERE)
VPY = os.path.join(P4, "..", ".venv", "bin", "python")
TOFINO = os.path.join(P4, "p4info", "tofino", "p4info.txt")
BMV2 = os.path.join(P4, "p4info", "bmv2", "p4info.txt")


def run(bmv2_text=None):
    args = [VPY, os.path.join(P4, "check_port.py"), TOFINO]
    if bmv2_text is None:
        args.append(BMV2)
        return subprocess.run(args, capture_output=True, text=True)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(bmv2_text)
    try:
        return subprocess.run(args + [f.name], capture_output=True, text=True)
    finally:
        os.unlink(f.name)


@unittest.skipUnless(os.path.exists(VPY), "needs the project venv (p4runtime protos)")
class CheckPortTest(unittest.TestCase):
    def test_committed_port_matches(self):
        r = run()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("allowed differences: const-size, digest-name, direct-actions, packed, port", r.stdout)

    def test_width_change_is_reported(self):
        text = open(BMV2).read()
        # set_queue(bit<8> qid): make the parameter 7 bits wide
        i = text.index('name: "IngressPipe.queueing.set_queue"')
        j = text.index("bitwidth: 8", i)
        r = run(text[:j] + "bitwidth: 7" + text[j + len("bitwidth: 8"):])
        self.assertEqual(r.returncode, 1)
        self.assertIn("action IngressPipe.queueing.set_queue param qid: width 8 on Tofino, 7 on BMv2", r.stderr)

    def test_missing_table_is_reported(self):
        text = open(BMV2).read()
        r = run(text.replace('name: "IngressPipe.queueing.queue_map"', 'name: "IngressPipe.queueing.qmap"'))
        self.assertEqual(r.returncode, 1)
        self.assertIn("table IngressPipe.queueing.queue_map: on Tofino, missing on BMv2", r.stderr)


if __name__ == "__main__":
    unittest.main()
