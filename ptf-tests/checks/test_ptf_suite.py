# SPDX-License-Identifier: Apache-2.0
"""The PTF suite without a switch: PTF collects it (`ptf --list`), every test is in a
feature group, and the tests only use what exists: P4 names from lib/contract.py (with the
match keys and action parameters declared there), attributes the packet and contract
modules define, and methods the base class defines."""
import ast
import glob
import importlib
import importlib.util
import inspect
import os
import re
import subprocess
import sys

import pytest

from conftest import PTF_DIR, REPO, report

TESTS = os.path.join(PTF_DIR, "tests")
sys.path.insert(0, TESTS)

import contract as C  # noqa: E402

# One group per feature of the issue; every test belongs to at least one.
FEATURE_GROUPS = {"packetio", "l2", "ipv4", "flow", "rtt", "classify", "marking", "shim", "aqm", "queueing",
                  "telemetry", "badinput", "vectors"}
MODULES = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(TESTS, "test_*.py")))


def ptf_list():
    # PTF writes ptf.log into the working directory unless told otherwise; keep it under build/.
    os.makedirs(os.path.join(REPO, "build"), exist_ok=True)
    p = subprocess.run([os.path.join(REPO, ".venv", "bin", "ptf"), "--test-dir", TESTS, "--list",
                        "--log-file", os.path.join(REPO, "build", "ptf-list.log")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    return p.stdout


def test_ptf_collects_the_suite():
    out = ptf_list()
    m = re.search(r"(\d+) modules shown with a total of (\d+) tests", out)
    assert m, out[-1000:]
    mods, tests = int(m.group(1)), int(m.group(2))
    assert mods == len(MODULES)
    groups = set(re.search(r"Test groups: (.*)", out).group(1).split(", "))
    missing = FEATURE_GROUPS - groups
    assert not missing, "no test in group(s) %s" % sorted(missing)
    classes = [cls for _, _, cls in _test_classes()]
    assert len(classes) == tests, "PTF lists %d tests, the modules define %d" % (tests, len(classes))
    counts = {g: sum(g in cls.__dict__.get("_groups", []) for cls in classes) for g in sorted(FEATURE_GROUPS)}
    report("PTF suite collected: %d tests in %d modules (ptf --list, no SDE); per group: %s"
           % (tests, mods, ", ".join("%s %d" % kv for kv in counts.items())))


def _load(modname):
    """A PTF module imported under a name of its own (ptf_suite.<module>), so its plain
    file name cannot clash with another suite's module in this pytest process."""
    full = "ptf_suite." + modname
    if full not in sys.modules:
        spec = importlib.util.spec_from_file_location(full, os.path.join(TESTS, modname + ".py"))
        mod = importlib.util.module_from_spec(spec)
        sys.modules[full] = mod
        spec.loader.exec_module(mod)
    return sys.modules[full]


def _test_classes():
    for modname in MODULES:
        mod = _load(modname)
        for name, cls in vars(mod).items():
            if inspect.isclass(cls) and cls.__module__ == mod.__name__ and hasattr(cls, "runTest"):
                yield modname, name, cls


def test_every_test_has_a_feature_group_and_a_docstring():
    for modname, name, cls in _test_classes():
        assert not name.startswith("_"), "%s.%s: PTF would run a helper class" % (modname, name)
        assert set(cls.__dict__.get("_groups", [])) & FEATURE_GROUPS, "%s.%s has no feature @group" % (modname, name)
        assert (cls.__doc__ or "").strip(), "%s.%s has no docstring (ptf --list shows it)" % (modname, name)


P4_NAME = re.compile(r"^(IngressPipe|EgressPipe)\.")
ALL_NAMES = {n for table in C.KIND_TABLES.values() for n in table}


def _const(node, env):
    """The value of a constant expression (strings, module constants, +), or None."""
    try:
        return eval(compile(ast.Expression(node), "<expr>", "eval"), dict(env))
    except Exception:
        return None


def _sources():
    for path in sorted(glob.glob(os.path.join(TESTS, "*.py"))):
        modname = os.path.basename(path)[:-3]
        yield modname, ast.parse(open(path).read(), path), vars(_load(modname))


def test_every_p4_name_in_the_tests_is_in_the_contract():
    seen = set()
    for modname, tree, env in _sources():
        for node in ast.walk(tree):
            if isinstance(node, (ast.BinOp, ast.Constant)):
                v = _const(node, env)
                if isinstance(v, str) and P4_NAME.match(v) and v.count(".") >= 2:
                    assert v in ALL_NAMES, "%s uses %r, not declared in lib/contract.py" % (modname, v)
                    seen.add(v)
    assert seen, "no P4 names found: the scan is broken"


def test_table_writes_use_declared_keys_actions_and_params():
    checked = 0
    for modname, tree, env in _sources():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "insert" and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "self" and node.args):
                continue
            table = _const(node.args[0], env)
            if table is None:
                continue  # a local variable: covered by the name scan and base_test's run-time guard
            assert table in C.TABLES, "%s: insert into %r, not a contract table" % (modname, table)
            args = node.args[1:]
            if args and isinstance(args[0], ast.Dict):
                keys = {_const(k, env) for k in args[0].keys}
                assert keys <= set(C.TABLES[table]["keys"]), "%s: %s keys %s" % (modname, table, keys)
            if len(args) >= 2:
                action = _const(args[1], env)
                assert action in C.TABLES[table]["actions"], "%s: %s has no action %r" % (modname, table, action)
                if len(args) >= 3 and isinstance(args[2], ast.Dict):
                    params = {_const(k, env) for k in args[2].keys}
                    assert params == set(C.ACTIONS[action]), "%s: %s params %s" % (modname, action, params)
                elif C.ACTIONS[action]:
                    assert len(args) >= 3, "%s: %s needs params %s" % (modname, action, sorted(C.ACTIONS[action]))
            checked += 1
    assert checked > 10


def test_module_attributes_and_base_methods_exist():
    base_test = _load("base_test")
    import packets as K
    aliases = {"K": K, "C": C}
    instance_attrs = set()
    for _, tree, _ in _sources():
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                    for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                        if isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name) and el.value.id == "self":
                            instance_attrs.add(el.attr)
    for modname, tree, env in _sources():
        classes = {n.name: env[n.name] for n in tree.body if isinstance(n, ast.ClassDef)}
        for cname, cls in classes.items():
            cnode = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cname)
            for node in ast.walk(cnode):
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    if node.value.id in aliases and isinstance(node.ctx, ast.Load):
                        assert hasattr(aliases[node.value.id], node.attr), \
                            "%s.%s uses %s.%s, which does not exist" % (modname, cname, node.value.id, node.attr)
                    if node.value.id == "self" and isinstance(node.ctx, ast.Load):
                        assert hasattr(cls, node.attr) or node.attr in instance_attrs, \
                            "%s.%s uses self.%s, defined nowhere" % (modname, cname, node.attr)
    assert issubclass(base_test.CcfairTest, object)


def _literal_flows(node, env):
    """(a, b, sport, dport) of every K.Flow(...) under `node` whose arguments are constants."""
    import packets as K
    default_dport = inspect.signature(K.Flow).parameters["dport"].default
    for n in ast.walk(node):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "Flow"
                and isinstance(n.func.value, ast.Name) and n.func.value.id == "K" and len(n.args) >= 3):
            continue
        args = [_const(a, env) for a in n.args[:4]]
        kw = {k.arg: _const(k.value, env) for k in n.keywords}
        vals = args[:3] + [args[3] if len(args) > 3 else kw.get("dport", default_dport)]
        if all(isinstance(v, int) for v in vals):
            yield tuple(vals)


def test_no_two_tests_share_a_tcp_flow():
    """Registers outlive a test: two tests that start the same 5-tuple, or two 5-tuples in one
    slot, see each other's flow state (for 17.2 s aliases of the last-seen clock even after it
    expired). Checks every K.Flow with constant arguments (a helper class's count for each test
    deriving from it), the SPORT..SPORT+9 a test class reserves (test_aqm's congest), the SPORTS
    a test retries with, and wait_claimable's probe; flows built from variables (loops, the colliding pair) are not seen."""
    import flowhash
    import packets as K
    from ccfair import params as P
    tests = [(m, n, c) for m, n, c in _test_classes()]
    owners = {}                                   # (a, b, sport, dport) -> {test}
    for modname, tree, env in _sources():
        for cnode in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            cls = env[cnode.name]
            users = {"%s.%s" % (m, n) for m, n, c in tests if issubclass(c, cls)}
            for t in _literal_flows(cnode, env):
                owners.setdefault(t, set()).update(users)
    for m, n, c in tests:
        if getattr(c, "SPORT", None) is not None:
            for r in range(10):
                owners.setdefault((0, 1, c.SPORT + r, 5001), set()).add("%s.%s" % (m, n))
        for sport in getattr(c, "SPORTS", ()):   # the fresh flows a test retries with (host 0 to 1)
            owners.setdefault((0, 1, sport, 5001), set()).add("%s.%s" % (m, n))
    owners.setdefault((14, 15, 9, 9), set()).add("base_test.wait_claimable")
    shared = {t: sorted(u) for t, u in owners.items() if len(u) > 1}
    assert not shared, "5-tuples (host a, host b, sport, dport) used by more than one test: %s" % shared
    assert len(owners) > 40, "only %d flows found: the scan is broken" % len(owners)
    sizes = {p["flows_per_pipe"] for p in P.load()["targets"]["profiles"].values()}
    for size in sizes:
        slots = {}
        for (a, b, sp, dp), users in owners.items():
            idx = flowhash.flow_index(K.HOST_IP[a], K.HOST_IP[b], sp, dp, (size - 1).bit_length())
            slots.setdefault(idx, set()).update(users)
            if len(slots[idx]) > 1:
                pytest.fail("slot %d (of %d) holds flows of %s" % (idx, size, sorted(slots[idx])))
    report("PTF flows: %d constant 5-tuples, each used by one test, in slots of their own" % len(owners))
