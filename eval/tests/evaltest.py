# SPDX-License-Identifier: Apache-2.0
"""What every eval test file needs: the paths, ccfair_eval, and whether the ccfair model is built
into eval/build/dumbbell (a build without it runs the other AQMs only)."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(EVAL, "pylib"))
import ccfair_eval as ce  # noqa: E402,F401

RUN = os.path.join(EVAL, "run")
MODEL_BUILT = "-DCCFAIR_MODEL" in subprocess.run(
    ["make", "-n", "-B", "-C", EVAL, "build/dumbbell"], capture_output=True, text=True).stdout
needs_model = pytest.mark.skipif(not MODEL_BUILT, reason="ccfair model not built into eval/build/dumbbell")
