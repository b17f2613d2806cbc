"""Checks a JSON log against rtt-core's JSON Schema and gives each kind's CSV header and fields."""

# rtt-core's serde structs are the one definition of the logs; schemars 1.x writes their schema
# (draft 2020-12). This reads the subset it emits: $ref into $defs, oneOf/anyOf/allOf, type (with
# "null"), required, properties, additionalProperties, items, enum, const, minimum/maximum (format is
# an annotation) and each kind's x-csv-header. Stdlib only: sweepkit/icmp_log.py uses it too.
# A reference baseline's log (ICMP ping, written by sweepkit/icmp_log.py) has null where the schema
# marks a field "runtime only" (threads, decoys, pacing…).

import json
import math
import operator
from functools import cache, cached_property
from pathlib import Path


PATH = Path(__file__).resolve().parent.parent / "schema" / "rtt-log.schema.json"  # rtt-core generates it
_TYPES = {"null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
          "string": lambda v: isinstance(v, str), "object": lambda v: isinstance(v, dict),
          "array": lambda v: isinstance(v, list),  # JSON's numbers: no bool, no NaN or infinity
          "number": lambda v: type(v) is int or type(v) is float and math.isfinite(v),
          "integer": lambda v: type(v) is int or type(v) is float and v.is_integer()}
_BOUNDS = (("minimum", operator.lt, "below"), ("maximum", operator.gt, "above"),
           ("exclusiveMinimum", operator.le, "at or below"), ("exclusiveMaximum", operator.ge, "at or above"))


class Invalid(ValueError):
    """A log the schema refuses; the message names the field."""  # e.g. field 'rtt_ns.p50' is missing


def _same(a, b) -> bool:
    return a == b and isinstance(a, bool) == isinstance(b, bool) and (a is None) == (b is None)


class Schema:
    def __init__(self, doc: dict):
        self.doc = doc

    def _target(self, ref: str):
        """The node a local reference ("#/$defs/Name") points at."""
        node = self.doc
        for part in filter(None, ref.removeprefix("#").split("/")):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def _parts(self, node):
        """The node and everything it includes by $ref and allOf: where properties may sit."""
        if isinstance(node, dict):
            yield node
            if "$ref" in node:
                yield from self._parts(self._target(node["$ref"]))
            for sub in node.get("allOf", ()):
                yield from self._parts(sub)

    @cached_property
    def kinds(self) -> dict[str, dict]:
        """Each kind of log → its schema: the branches of the root's oneOf/anyOf, by their kind const."""
        found, root = {}, next((p for p in self._parts(self.doc) if "oneOf" in p or "anyOf" in p), self.doc)
        for branch in root.get("oneOf", root.get("anyOf", [root])):
            for part in self._parts(branch):
                kind = part.get("properties", {}).get("kind")
                kind = self._target(kind["$ref"]) if isinstance(kind, dict) and "$ref" in kind else kind
                if isinstance(kind, dict) and ("const" in kind or len(kind.get("enum", ())) == 1):
                    found[kind.get("const", kind.get("enum", [None])[0])] = branch
        return found

    def csv_header(self, kind: str) -> str | None:
        """The header line of that kind's CSV log, e.g. "seq,t_ns,rtt_ns"; None for a kind whose log is
        its JSON alone (micro)."""
        header = next((p["x-csv-header"] for p in self._parts(self.kinds[kind]) if "x-csv-header" in p), None)
        return header if header is None or isinstance(header, str) else ",".join(header)

    def blank(self, kind: str) -> dict:
        """A log of that kind with null in every field that may be null."""
        parts = [p.get("properties", {}) for p in self._parts(self.kinds[kind])]
        names = dict.fromkeys(k for properties in parts for k in properties)  # in the schema's order
        return {k: None for k in names if all(self._error(p[k], None, ()) is None for p in parts if k in p)}

    def validate(self, log) -> None:
        """Raises Invalid naming the first field that does not fit (the most specific one)."""
        error = self._error(self.doc, log, ())
        if error is not None:
            raise Invalid(f"field {'.'.join(map(str, error[0]))!r} {error[1]}" if error[0] else f"the log {error[1]}")

    def _error(self, node, value, path):
        """(path, what is wrong) or None."""
        if node is True or node is False or node == {}:
            return None if node is not False else (path, "is not allowed")
        types = node.get("type", [])
        if types and not any(_TYPES[t](value) for t in ([types] if isinstance(types, str) else types)):
            return path, f"is {value!r}, not {types if isinstance(types, str) else ' or '.join(types)}"
        if "const" in node and not _same(value, node["const"]):
            return path, f"is {value!r}, not {node['const']!r}"
        if "enum" in node and not any(_same(value, e) for e in node["enum"]):
            return path, f"is {value!r}, not one of {', '.join(map(repr, node['enum']))}"
        for key, fails, word in _BOUNDS if _TYPES["number"](value) else ():
            if key in node and fails(value, node[key]):
                return path, f"is {value!r}, {word} {node[key]!r}"
        subs = ([self._target(node["$ref"])] if "$ref" in node else []) + node.get("allOf", [])
        error = next(filter(None, (self._error(sub, value, path) for sub in subs)), None)
        for key in ("oneOf", "anyOf"):
            error = error or (self._choice(node[key], value, path, key == "oneOf") if key in node else None)
        if error or not isinstance(value, (dict, list)):
            return error
        if isinstance(value, list):
            items = node.get("items", True)
            return next(filter(None, (self._error(items, v, (*path, i)) for i, v in enumerate(value))), None)
        missing = next((key for key in node.get("required", ()) if key not in value), None)
        if missing is not None:
            return (*path, missing), "is missing"
        properties, extra = node.get("properties", {}), node.get("additionalProperties", True)
        errors = (self._error(properties.get(k, extra), v, (*path, k)) for k, v in value.items())
        return next(filter(None, errors), None)

    def _choice(self, branches, value, path, exactly_one: bool):
        kinds = self.kinds
        if path == () and isinstance(value, dict) and kinds:  # the kind picks the branch
            if "kind" not in value:
                return ("kind",), "is missing"
            if not isinstance(value["kind"], str) or value["kind"] not in kinds:
                return ("kind",), f"is {value['kind']!r}, not one of {', '.join(map(repr, kinds))}"
            branches = [kinds[value["kind"]]]
        errors = [self._error(b, value, path) for b in branches]
        passed = errors.count(None)
        if passed > 1 and exactly_one:
            return path, f"fits {passed} of the schema's alternatives, not one"
        return None if passed else max(errors, key=lambda e: len(e[0]))  # the deepest says the most


@cache
def schema(path: Path = PATH) -> Schema:
    """The logs' schema, as rtt-core generates it."""
    return Schema(json.loads(path.read_text(encoding="utf-8")))
