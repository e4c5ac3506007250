#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Copy the committed P4Info of each profile into a form ONOS 2.7 can parse.

  p4info_for_onos.py SRC_DIR OUT_DIR

SRC_DIR/<profile>/p4info.txt (p4/p4info/) -> OUT_DIR/<profile>/p4info.txt.

bf-p4c 1.2.5.9 writes P4Runtime 1.4 P4Info; ONOS 2.7's P4InfoParser is built
on an older p4.config.v1 and rejects the fields it does not know
("Input contains unknown fields"). Those fields are informational (initial
default action, whether const entries exist) and are dropped here; every
object, id, match field, action and parameter stays. P4InfoModelTest parses
the result with ONOS's own parser, so a further new field fails the build.
The committed file stays as the compiler wrote it: it is the contract.
"""
import os
import re
import sys

# Table fields newer than ONOS 2.7's p4.config.v1 (P4Runtime 1.4).
DROP_FIELDS = ("initial_default_action", "has_initial_entries")


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def strip(text):
    out, depth_skip = [], 0
    for line in text.splitlines(keepends=True):
        s = STRING.sub('""', line.strip())  # braces inside byte strings do not count
        if depth_skip:
            depth_skip += s.count("{") - s.count("}")
            continue
        name = s.split(":")[0].split("{")[0].strip()
        if name in DROP_FIELDS:
            if s.endswith("{"):
                depth_skip = 1
            continue
        out.append(line)
    if depth_skip:
        raise ValueError("unbalanced braces after a dropped field")
    return "".join(out)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    src, out = argv[1], argv[2]
    done = []
    for profile in sorted(os.listdir(src)) if os.path.isdir(src) else []:
        path = os.path.join(src, profile, "p4info.txt")
        if not os.path.isfile(path):
            continue
        text = strip(open(path).read())
        os.makedirs(os.path.join(out, profile), exist_ok=True)
        target = os.path.join(out, profile, "p4info.txt")
        if not os.path.exists(target) or open(target).read() != text:
            with open(target, "w") as f:
                f.write(text)
        done.append(profile)
    print("p4info_for_onos: %s" % (", ".join(done) if done else "no committed P4Info"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
