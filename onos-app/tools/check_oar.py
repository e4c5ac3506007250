#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the built .oar: app.xml, the bundle, and inside the bundle the P4Info
of every profile committed under p4/p4info/, the parameters and the REST web.xml.

    check_oar.py OAR P4INFO_DIR
Run by the Maven build at `verify`. A profile without committed P4Info prints SKIPPED.
"""
import io
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from p4info_for_onos import strip  # noqa: E402  the bundle holds the ONOS 2.7 form


def main(oar, p4info_dir):
    z = zipfile.ZipFile(oar)
    names = z.namelist()
    problems = []
    if 'app.xml' not in names:
        problems.append('app.xml missing')
    jars = [n for n in names if n.endswith('.jar')]
    if len(jars) != 1:
        problems.append('expected one bundle jar, found %s' % jars)
    else:
        bundle = zipfile.ZipFile(io.BytesIO(z.read(jars[0])))
        inner = set(bundle.namelist())
        for need in ('WEB-INF/web.xml', 'WEB-INF/classes/ccfair/ccfair.json', 'WEB-INF/classes/ccfair/openapi.json'):
            if need not in inner:
                problems.append('%s missing from %s' % (need, jars[0]))
        for profile in ('tofino', 'tofino2'):
            src = os.path.join(p4info_dir, profile, 'p4info.txt')
            path = 'WEB-INF/classes/p4info/%s/p4info.txt' % profile
            if not os.path.exists(src):
                print('SKIPPED: P4Info of %s in the .oar (%s not committed yet)' % (profile, os.path.relpath(src)))
            elif path not in inner:
                problems.append('%s missing from %s' % (path, jars[0]))
            elif bundle.read(path).decode() != strip(open(src).read()):
                problems.append('%s in the bundle differs from %s (as tools/p4info_for_onos.py writes it)'
                                % (path, src))
    if problems:
        raise SystemExit('check_oar: %s: %s' % (oar, '; '.join(problems)))
    print('check_oar: %s: app.xml, bundle, params, web.xml%s' % (
        os.path.basename(oar), ''.join(', P4Info ' + p for p in ('tofino', 'tofino2')
                                         if os.path.exists(os.path.join(p4info_dir, p, 'p4info.txt')))))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
