"""Checks one OTLP/HTTP JSON export with the official protobuf JSON mapping.

Usage: check_otlp.py <export.json> <expected.json>

The export is parsed strictly (json_format.Parse, unknown fields refused) into
opentelemetry-proto's ExportTraceServiceRequest. expected.json, from the
session's own view, is {"executions": n, "steps": [[input, output] | null, ...],
"tools": n}: one entry per step in view order. Checked: span counts per
operation, the nesting run -> chat -> execute_tool by parent span id, and
each chat span's usage tokens. Exits 1 with the reason on a mismatch.

OTLP's JSON encoding writes traceId/spanId as hex where proto3 JSON writes
bytes as base64; json_format reads the hex characters as base64 (they are in
its alphabet), so ids are compared in that re-encoded form, and their text
form is checked against the hex lengths OTLP requires.
"""

import base64
import json
import re
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)


def fail(message):
    print(f"check_otlp: {message}", file=sys.stderr)
    sys.exit(1)


def attrs(span):
    out = {}
    for kv in span.attributes:
        v = kv.value
        kind = v.WhichOneof("value")
        out[kv.key] = getattr(v, kind) if kind else None
    return out


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    expected = json.load(open(sys.argv[2], encoding="utf-8"))
    request = json_format.Parse(text, ExportTraceServiceRequest(), ignore_unknown_fields=False)

    raw = json.loads(text)
    for rs in raw["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                for key, n in (("traceId", 32), ("spanId", 16), ("parentSpanId", 16)):
                    if key in s and not re.fullmatch(f"[0-9a-f]{{{n}}}", s[key]):
                        fail(f"{key} {s[key]!r} is not {n} lowercase hex characters")

    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    by_op = {"invoke_agent": [], "chat": [], "execute_tool": []}
    for s in spans:
        op = attrs(s).get("gen_ai.operation.name")
        if op not in by_op:
            fail(f"span {s.name!r} has operation {op!r}")
        by_op[op].append(s)

    runs, chats, tools = by_op["invoke_agent"], by_op["chat"], by_op["execute_tool"]
    counts = (len(runs), len(chats), len(tools))
    want = (expected["executions"], len(expected["steps"]), expected["tools"])
    if counts != want:
        fail(f"spans (runs, chats, tools) {counts} != view {want}")

    run_ids = {s.span_id for s in runs}
    chat_ids = {s.span_id for s in chats}
    for s in runs:
        if s.parent_span_id:
            fail(f"run span {s.name!r} has a parent")
    for s in chats:
        if s.parent_span_id not in run_ids:
            fail(f"chat span {base64.b64encode(s.span_id)!r} is not under a run span")
    for s in tools:
        if s.parent_span_id not in chat_ids:
            fail(f"tool span {s.name!r} is not under a chat span")
        if not s.name.startswith("execute_tool "):
            fail(f"tool span named {s.name!r}")
        if "gen_ai.tool.name" not in attrs(s):
            fail(f"tool span {s.name!r} has no gen_ai.tool.name")
    for s in spans:
        if s.end_time_unix_nano < s.start_time_unix_nano:
            fail(f"span {s.name!r} ends before it starts")

    for i, (s, usage) in enumerate(zip(chats, expected["steps"])):
        a = attrs(s)
        got = [a.get("gen_ai.usage.input_tokens"), a.get("gen_ai.usage.output_tokens")]
        want_usage = usage if usage is not None else [None, None]
        if got != want_usage:
            fail(f"chat span {i}: usage {got} != view {want_usage}")

    print(json.dumps({"runs": len(runs), "chats": len(chats), "tools": len(tools)}))


main()
