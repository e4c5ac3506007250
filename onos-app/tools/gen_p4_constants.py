#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the ONOS app's Java constants (PiTableId, PiActionId, ...) from P4Info.

    gen_p4_constants.py [--fallback CONTRACT] OUT_DIR P4INFO [P4INFO ...]

With --fallback, when none of the P4Info files exists yet (the data plane
has not committed them), the constants are generated from CONTRACT, the
contract of docs/dataplane.md in P4Info text form, and a WARNING says so.

Every P4Info given (one per profile) must name the same P4 objects with the
same widths: the app has one set of constants for all profiles, and a profile
that drifts fails the build here instead of at run time on a switch.
Writes OUT_DIR/org/ccfair/app/pipeconf/P4InfoConstants.java.
Reads the protobuf text format with a small parser (no protobuf package needed).
"""
import os
import re
import sys

TOKEN = re.compile(r'\s*(?:(#[^\n]*)|([A-Za-z_][A-Za-z0-9_.]*)|(-?[0-9]+)|("(?:[^"\\]|\\.)*")|([{}:]))')


def parse(text):
    """Parses protobuf text format into {field: [values]} (values: str, int or nested dicts)."""
    pos, stack, cur = 0, [], {}
    key = None
    while pos < len(text):
        if text[pos:].strip() == '':
            break
        m = TOKEN.match(text, pos)
        if not m:
            raise ValueError('p4info: cannot parse near %r' % text[pos:pos + 40])
        pos = m.end()
        comment, ident, num, string, punct = m.groups()
        if comment:
            continue
        if punct == '{':
            child = {}
            cur.setdefault(key, []).append(child)
            stack.append(cur)
            cur, key = child, None
        elif punct == '}':
            cur = stack.pop()
        elif punct == ':':
            continue
        elif key is None:
            key = ident
        else:
            if string is not None:
                val = bytes(string[1:-1], 'utf-8').decode('unicode_escape')
            elif num is not None:
                val = int(num)
            else:
                val = ident
            cur.setdefault(key, []).append(val)
            key = None
    if stack:
        raise ValueError('p4info: unbalanced braces')
    return cur


def one(d, k, default=None):
    v = d.get(k)
    return v[0] if v else default


def const_name(p4name):
    s = re.sub(r'([a-z0-9])([A-Z])', r'\1_\2', p4name)
    return re.sub(r'[^A-Za-z0-9]+', '_', s).strip('_').upper()


def objects(info):
    """Name -> (kind, details) for everything the app may refer to."""
    out = {}
    for t in info.get('tables', []):
        pre = one(t, 'preamble')
        out['table ' + one(pre, 'name')] = sorted((one(m, 'name'), one(m, 'bitwidth', 0), one(m, 'match_type', ''))
                                                  for m in t.get('match_fields', []))
    for a in info.get('actions', []):
        pre = one(a, 'preamble')
        out['action ' + one(pre, 'name')] = sorted((one(p, 'name'), one(p, 'bitwidth', 0)) for p in a.get('params', []))
    for kind in ('counters', 'direct_counters', 'registers', 'meters', 'digests'):
        for c in info.get(kind, []):
            pre = one(c, 'preamble')
            out[kind[:-1] + ' ' + one(pre, 'name')] = one(c, 'size', 0)
    for c in info.get('controller_packet_metadata', []):
        pre = one(c, 'preamble')
        out['packet_metadata ' + one(pre, 'name')] = sorted((one(m, 'name'), one(m, 'bitwidth', 0))
                                                            for m in c.get('metadata', []))
    return out


def generate(infos, source_note):
    base = objects(infos[0][1])
    for path, info in infos[1:]:
        other = objects(info)
        names = set(base) ^ set(other)
        if names:
            raise SystemExit('gen_p4_constants: %s and %s name different objects: %s'
                             % (infos[0][0], path, ', '.join(sorted(names))))
        for k in base:
            if k.split(' ')[0] in ('table', 'action', 'packet_metadata') and base[k] != other[k]:
                raise SystemExit('gen_p4_constants: %s differs between %s and %s: %s vs %s'
                                 % (k, infos[0][0], path, base[k], other[k]))
    info = infos[0][1]
    consts = {}
    # Sizes may differ by profile (routing_v4, per-queue arrays): one
    # constant per profile then, so nobody uses the wrong one.
    sizes = {}
    for path, inf in infos:
        prof = os.path.basename(os.path.dirname(path))
        for kind in ('tables', 'counters', 'direct_counters', 'registers', 'meters'):
            for c in inf.get(kind, []):
                sizes.setdefault(one(one(c, 'preamble'), 'name'), {})[prof] = str(one(c, 'size', 0))

    def add_size(n):
        per = sizes.get(n, {})
        if len(set(per.values())) <= 1:
            add(const_name(n) + '_SIZE', next(iter(per.values()), '0'))
        else:
            for prof, v in sorted(per.items()):
                add(const_name(n) + '_SIZE_' + const_name(prof), v)

    def add(name, java):
        if name in consts and consts[name] != java:
            raise SystemExit('gen_p4_constants: two objects map to constant %s' % name)
        consts[name] = java

    for t in info.get('tables', []):
        n = one(one(t, 'preamble'), 'name')
        add(const_name(n), 'PiTableId.of("%s")' % n)
        add_size(n)
        for m in t.get('match_fields', []):
            mn = one(m, 'name')
            add('HDR_' + const_name(mn), 'PiMatchFieldId.of("%s")' % mn)
            add('HDR_' + const_name(mn) + '_BITWIDTH', str(one(m, 'bitwidth', 0)))
    for a in info.get('actions', []):
        n = one(one(a, 'preamble'), 'name')
        add(const_name(n), 'PiActionId.of("%s")' % n)
        for p in a.get('params', []):
            pn = one(p, 'name')
            add(const_name(pn), 'PiActionParamId.of("%s")' % pn)
            add(const_name(pn) + '_BITWIDTH', str(one(p, 'bitwidth', 0)))
    for kind, cls in (('counters', 'PiCounterId'), ('direct_counters', 'PiCounterId'),
                      ('registers', 'PiRegisterId'), ('meters', 'PiMeterId')):
        for c in info.get(kind, []):
            n = one(one(c, 'preamble'), 'name')
            add(const_name(n), '%s.of("%s")' % (cls, n))
            add_size(n)
    for c in info.get('controller_packet_metadata', []):
        for m in c.get('metadata', []):
            mn = one(m, 'name')
            if mn.startswith('_pad'):
                continue
            add(const_name(mn), 'PiPacketMetadataId.of("%s")' % mn)
            add(const_name(mn) + '_BITWIDTH', str(one(m, 'bitwidth', 0)))
    lines = ['/*', ' * SPDX-License-Identifier: Apache-2.0', ' */',
             '// GENERATED by onos-app/tools/gen_p4_constants.py from ' + source_note + '. Do not edit.',
             'package org.ccfair.app.pipeconf;', '',
             'import org.onosproject.net.pi.model.PiActionId;',
             'import org.onosproject.net.pi.model.PiActionParamId;',
             'import org.onosproject.net.pi.model.PiCounterId;',
             'import org.onosproject.net.pi.model.PiMatchFieldId;',
             'import org.onosproject.net.pi.model.PiMeterId;',
             'import org.onosproject.net.pi.model.PiPacketMetadataId;',
             'import org.onosproject.net.pi.model.PiRegisterId;',
             'import org.onosproject.net.pi.model.PiTableId;', '',
             '/**', ' * Names of the ccfair P4 program\'s objects, generated from its P4Info.', ' */',
             'public final class P4InfoConstants {', '',
             '    private P4InfoConstants() {', '    }', '']
    for name in sorted(consts):
        java = consts[name]
        typ = 'int' if re.fullmatch(r'-?[0-9]+', java) else java.split('.')[0]
        lines.append('    public static final %s %s = %s;' % (typ, name, java))
    lines += ['}', '']
    used = {l.split('.')[0] for l in consts.values() if not re.fullmatch(r'-?[0-9]+', l)}
    lines = [l for l in lines if not (l.startswith('import org.onosproject.net.pi.model.')
                                      and l.split('.')[-1].rstrip(';') not in used)]
    return '\n'.join(lines)


def main(argv):
    args = argv[1:]
    fallback = None
    if args[:1] == ['--fallback']:
        fallback, args = args[1], args[2:]
    if len(args) < 2:
        raise SystemExit(__doc__)
    out_dir, paths = args[0], args[1:]
    present = [p for p in paths if os.path.exists(p)]
    if len(present) < len(paths) and present:
        print('gen_p4_constants: WARNING: %s missing; constants from %s only'
              % (', '.join(sorted(set(paths) - set(present))), ', '.join(present)))
    skipped = None
    if not present:
        if not fallback:
            raise SystemExit('gen_p4_constants: none of %s exists' % ', '.join(paths))
        skipped = ('SKIPPED: ONOS app constants from committed P4Info (%s not committed yet; generated from the '
                   'contract %s)' % (', '.join(os.path.relpath(p) for p in paths), os.path.relpath(fallback)))
        present = [fallback]
    infos = [(p, parse(open(p).read())) for p in present]
    note = ', '.join(os.path.relpath(p) for p in present)
    target = os.path.join(out_dir, 'org', 'ccfair', 'app', 'pipeconf', 'P4InfoConstants.java')
    os.makedirs(os.path.dirname(target), exist_ok=True)
    text = generate(infos, note)
    if not os.path.exists(target) or open(target).read() != text:
        with open(target, 'w') as f:
            f.write(text)
    # This line first: Maven prefixes the plugin's first output line with terminal codes,
    # and a SKIPPED line must start its line to be counted by tools/run-tests.sh.
    print('gen_p4_constants: %s from %s' % (os.path.relpath(target), note))
    if skipped:
        print(skipped)
    # Say at build time whether the pipeconfs will carry a device config (p4/build/<profile>/ from `make p4`).
    for p in paths:
        if os.path.basename(os.path.dirname(os.path.dirname(p))) != 'p4info':
            continue  # not p4/p4info/<profile>/p4info.txt: no device config to look for
        build = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(p))), 'build',
                             os.path.basename(os.path.dirname(p)))
        prof = os.path.basename(os.path.dirname(p))
        # The same files PipeconfLoader looks for (and the pom bundles).
        has = lambda *names: all(os.path.isfile(os.path.join(build, n)) for n in names)
        if has('pipeline_config.pb.bin') or has(prof + '.bin', 'context.json'):
            print('gen_p4_constants: device config for %s: bundled from %s' % (prof, os.path.relpath(build)))
        else:
            print('SKIPPED: device config in the %s pipeconf (no pipeline_config.pb.bin or %s.bin + '
                  'context.json in %s: build them first with `make p4`, which needs bf-p4c)'
                  % (prof, prof, os.path.relpath(build)))


if __name__ == '__main__':
    main(sys.argv)
