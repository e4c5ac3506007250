#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Validate testdata/vectors/*.json against vectors/schema.json (and name == file stem).

Prints one line per vector and exits 1 on any error; prints SKIPPED when the
jsonschema package is missing (it comes with requirements.txt)."""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    try:
        import jsonschema
    except ImportError:
        print("SKIPPED: test-vector schema validation (python package jsonschema not installed)")
        return 0
    with open(os.path.join(HERE, "vectors", "schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    bad = 0
    files = sorted(p for p in glob.glob(os.path.join(HERE, "vectors", "*.json")) if not p.endswith("schema.json"))
    for path in files:
        stem = os.path.basename(path)[:-5]
        try:
            with open(path) as f:
                v = json.load(f)
        except ValueError as e:
            print("vector %s: INVALID JSON: %s" % (stem, e))
            bad += 1
            continue
        errors = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(root)", e.message)
                  for e in validator.iter_errors(v)]
        if v.get("name") != stem:
            errors.append("name %r differs from the file name %r" % (v.get("name"), stem))
        for s in v.get("steps", []):
            if "flow" in s and s["flow"] not in v.get("flows", {}):
                errors.append("step at t_us=%s names unknown flow %r" % (s.get("t_us"), s["flow"]))
        print("schema %s: %s" % (stem, "ok" if not errors else "INVALID\n  " + "\n  ".join(errors[:5])))
        bad += bool(errors)
    print("vectors: %d valid, %d invalid" % (len(files) - bad, bad))
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main())
