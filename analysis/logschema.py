"""Checks a JSON log against rtt-core's JSON Schema and gives each kind's CSV header and fields."""

# rtt-core's serde structs are the one definition of the logs; schemars 1.x writes their schema
# (draft 2020-12). This reads the subset it emits: $ref into $defs, oneOf, anyOf, allOf, type (with
# "null"), required, properties, additionalProperties, items, enum, const, minimum/maximum (format is
# an annotation), and each kind's custom x-csv-header. Stdlib only: scripts/icmp_log.py uses it too.

import json
import math
from functools import cache, cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "schema" / "rtt-log.schema.json"  # written by rtt-core
STAND_IN = ROOT / "analysis" / "tests" / "fixtures" / "rtt-log.schema.json"  # until GENERATED exists
_TYPES = {"null": lambda v: v is None, "boolean": lambda v: isinstance(v, bool),
          "string": lambda v: isinstance(v, str), "object": lambda v: isinstance(v, dict),
          "array": lambda v: isinstance(v, list),  # JSON's numbers: no bool, no NaN or infinity
          "number": lambda v: type(v) is int or type(v) is float and math.isfinite(v),
          "integer": lambda v: type(v) is int or type(v) is float and v.is_integer()}


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
        for part in ref.removeprefix("#").strip("/").split("/") if ref != "#" else ():
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

    def csv_header(self, kind: str) -> str:
        """The header line of that kind's CSV log, e.g. "seq,t_ns,rtt_ns"."""
        header = next(p["x-csv-header"] for p in self._parts(self.kinds[kind]) if "x-csv-header" in p)
        return header if isinstance(header, str) else ",".join(header)

    def blank(self, kind: str) -> dict:
        """A log of that kind with null in every field that may be null, to fill in."""
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
        if node is True or node == {}:
            return None
        if node is False:
            return path, "is not allowed"
        if "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            if not any(_TYPES[t](value) for t in types):
                return path, f"is {value!r}, not {' or '.join(types)}"
        if "const" in node and not _same(value, node["const"]):
            return path, f"is {value!r}, not {node['const']!r}"
        if "enum" in node and not any(_same(value, e) for e in node["enum"]):
            return path, f"is {value!r}, not one of {', '.join(map(repr, node['enum']))}"
        if _TYPES["number"](value):
            for key, fails, word in (("minimum", value.__lt__, "below"), ("maximum", value.__gt__, "above"),
                                     ("exclusiveMinimum", value.__le__, "at or below"),
                                     ("exclusiveMaximum", value.__ge__, "at or above")):
                if key in node and fails(node[key]) is True:
                    return path, f"is {value!r}, {word} {node[key]!r}"
        for sub in ([self._target(node["$ref"])] if "$ref" in node else []) + node.get("allOf", []):
            error = self._error(sub, value, path)
            if error:
                return error
        for key in ("oneOf", "anyOf"):
            if key in node:
                error = self._choice(node[key], value, path, key == "oneOf")
                if error:
                    return error
        if isinstance(value, dict):
            return self._object(node, value, path)
        if isinstance(value, list) and "items" in node:
            return next(filter(None, (self._error(node["items"], v, (*path, i)) for i, v in enumerate(value))), None)
        return None

    def _object(self, node, value: dict, path):
        for key in node.get("required", ()):
            if key not in value:
                return (*path, key), "is missing"
        properties, extra = node.get("properties", {}), node.get("additionalProperties", True)
        for key, item in value.items():
            error = self._error(properties.get(key, extra), item, (*path, key))
            if error:
                return error
        return None

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
        if passed == 1 or passed > 1 and not exactly_one:
            return None
        if passed > 1:
            return path, f"fits {passed} of the schema's alternatives, not one"
        return max(errors, key=lambda e: len(e[0]))  # the deepest complaint says the most


@cache
def schema(path: Path | None = None) -> Schema:
    """The logs' schema: rtt-core's generated one, else the stand-in."""
    path = path or (GENERATED if GENERATED.is_file() else STAND_IN)
    return Schema(json.loads(path.read_text(encoding="utf-8")))
