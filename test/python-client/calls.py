"""Runs gRPC calls with gRPC C-core's Python binding (grpcio), for tabletop's interop tests.

Reads a JSON plan on stdin and prints one JSON result per call, in plan order:

  {"target": "host:port",
   "calls": [{"kind": "unary" | "stream", "path": "/pkg.Service/Method",
              "request": "<base64 of the serialized request>",
              "repeat": N (optional, default 1), "threads": T (optional, default 1)}]}

Each call is made `repeat` times, spread over `threads` threads sharing one
channel (one HTTP/2 connection, so the calls are multiplexed). A result is
{"ok": true, "responses": [[base64, ...] per repetition]} or, if any
repetition failed, {"ok": false, "code": <numeric status>, "details": "..."}.
Requests and responses stay serialized: no generated stubs are needed.
"""
import base64
import json
import sys
from concurrent.futures import ThreadPoolExecutor

import grpc


def run(channel, call):
    request = base64.b64decode(call["request"])
    if call["kind"] == "unary":
        method = channel.unary_unary(call["path"])
        invoke = lambda: [method(request, timeout=60)]
    else:
        method = channel.unary_stream(call["path"])
        invoke = lambda: list(method(request, timeout=60))
    repeat = call.get("repeat", 1)
    with ThreadPoolExecutor(max_workers=call.get("threads", 1)) as pool:
        futures = [pool.submit(invoke) for _ in range(repeat)]
        try:
            results = [f.result() for f in futures]
        except grpc.RpcError as e:
            return {"ok": False, "code": e.code().value[0], "details": e.details()}
    return {"ok": True, "responses": [[base64.b64encode(m).decode() for m in r] for r in results]}


def main():
    plan = json.load(sys.stdin)
    with grpc.insecure_channel(plan["target"]) as channel:
        out = [run(channel, call) for call in plan["calls"]]
    json.dump(out, sys.stdout)


main()
