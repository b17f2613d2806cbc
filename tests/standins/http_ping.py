"""A stand-in HTTP ping for the MODE=wrk tests: POST /echo on one keep-alive connection for --duration seconds,
its round trips written as the suite's rtt log pair (--out STEM), transport http."""

import argparse
import http.client
import json
import time

from suite import logschema, percentile


def main() -> None:
    parser = argparse.ArgumentParser()
    for option in ("--address", "--out", "--protocol"):
        parser.add_argument(option, required=True)
    for option, default in (("--size", 64), ("--connections", 1)):
        parser.add_argument(option, type=int, default=default)
    parser.add_argument("--duration", type=float, default=1)
    options, _ = parser.parse_known_args()
    host, port = options.address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    rtts, statuses, end = [], {}, time.monotonic() + options.duration
    while time.monotonic() < end:
        start = time.monotonic_ns()
        connection.request("POST", "/echo", body=b"x" * options.size)
        reply = connection.getresponse()
        reply.read()
        statuses[str(reply.status)] = statuses.get(str(reply.status), 0) + 1
        rtts.append(time.monotonic_ns() - start)
    ordered = sorted(rtts)
    figures = {f"p{name}": ordered[percentile.index(len(ordered), p)]
               for name, p in (("50", 50), ("90", 90), ("99", 99), ("999", 99.9), ("9999", 99.99))}
    with open(f"{options.out}.csv", "w") as csv:
        csv.write(logschema.schema().csv_header("rtt") + "\n")
        csv.writelines(f"{seq},{sum(rtts[:seq])},{rtt},0,\n" for seq, rtt in enumerate(rtts))
    log = logschema.schema().blank("rtt") | {
        "schema": "rtt-log/1", "kind": "rtt", "framework": "std", "transport": options.protocol,
        "payload": options.size, "interval_s": 0.0, "achieved_rate": len(rtts) / options.duration,
        "sent": len(rtts), "received": len(rtts), "lost": 0, "complete": True, "connections": options.connections,
        "load": "closed", "started_at": "2026-11-27T10:00:00Z", "address": options.address, "duration_s": options.duration,
        "rtt_ns": {"n": len(rtts), "min": ordered[0], "max": ordered[-1], "mean": sum(rtts) / len(rtts), "stdev": 0.0,
                   **figures},
        "http": {"method": "POST", "path": "/echo", "body_bytes": options.size, "statuses": statuses}}
    with open(f"{options.out}.json", "w") as out:
        json.dump(log, out)


if __name__ == "__main__":
    main()
