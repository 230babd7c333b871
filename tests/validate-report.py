#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Validate JSON documents of proctor's against proto/report.schema.json.

    validate-report.py [--schema FILE] [FILE...]    (no FILE, or -: stdin)

Each FILE holds one JSON object. Exit 0 if all are valid; 1 with one line
per error ("FILE: at PATH: what is wrong") if not; 2 if the schema or a
file cannot be read, or python3-jsonschema is missing (77 then, the
automake convention for "skipped", so a caller can tell).
"""

import json
import os
import sys

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "proto", "report.schema.json")


def load(path):
    if path == "-":
        return json.load(sys.stdin)
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    schema_path = SCHEMA
    if argv[:1] == ["--schema"] and len(argv) >= 2:
        schema_path, argv = argv[1], argv[2:]
    try:
        import jsonschema
    except ImportError:
        print("validate-report: python3-jsonschema is not installed", file=sys.stderr)
        return 77
    try:
        schema = load(schema_path)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = cls(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        print("validate-report: %s: %s" % (schema_path, e), file=sys.stderr)
        return 2
    bad = 0
    for path in argv or ["-"]:
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            print("validate-report: %s: %s" % (path, e), file=sys.stderr)
            return 2
        for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in err.absolute_path) or "(top)"
            print("%s: at %s: %s" % (path, where, err.message), file=sys.stderr)
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
