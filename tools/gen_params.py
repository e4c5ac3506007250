#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate language headers from params/ccfair.json.

  gen_params.py p4  OUT.p4   -> #define CCFAIR_* for the P4 program (integers only)
  gen_params.py cpp OUT.h    -> constexpr values for the ns-3 model

Generated files live in build directories and are never committed: the JSON
is the only copy that people edit.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ccfair import params as P  # noqa: E402

HEADER = "// SPDX-License-Identifier: Apache-2.0\n// GENERATED from params/ccfair.json by tools/gen_params.py. Do not edit.\n"


def gen_p4(p):
    lines = [HEADER, "#ifndef CCFAIR_PARAMS_P4", "#define CCFAIR_PARAMS_P4"]
    for name, v in P.flat(p) + P.derived(p):
        try:
            lines.append("#define CCFAIR_%s %d" % (name, P.int_value(v)))
        except TypeError:
            pass  # floats and strings have no P4 meaning; the controller uses them
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def gen_cpp(p):
    lines = [HEADER, "#pragma once", "#include <cstdint>", "namespace ccfair { namespace params {"]
    for name, v in P.flat(p) + P.derived(p):
        if isinstance(v, float):
            lines.append("constexpr double %s = %r;" % (name, v))
        elif isinstance(v, str) and not v.lower().startswith("0x"):
            lines.append('constexpr const char* %s = "%s";' % (name, v))
        else:
            lines.append("constexpr int64_t %s = %d;" % (name, P.int_value(v)))
    for section, body in p.items():  # integer lists (flat() leaves them out): constexpr arrays
        if isinstance(body, dict):
            for key, v in body.items():
                if not key.startswith("_") and isinstance(v, list) and v and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
                    lines.append("constexpr int64_t %s_%s[] = {%s};"
                                 % (section.upper(), key.upper(), ", ".join(str(x) for x in v)))
    names = ", ".join('"%s"' % n for n in P.group_names(p))
    lines.append("constexpr const char* GROUP_NAMES[] = {%s};" % names)
    lines.append("}}  // namespace ccfair::params")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 3 or argv[1] not in ("p4", "cpp"):
        sys.stderr.write("usage: gen_params.py {p4|cpp} OUTFILE\n")
        return 2
    p = P.load()
    text = gen_p4(p) if argv[1] == "p4" else gen_cpp(p)
    os.makedirs(os.path.dirname(os.path.abspath(argv[2])), exist_ok=True)
    tmp = argv[2] + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
