"""A stand-in HTTP pong for the MODE=wrk tests: POST /echo echoes its body (keep-alive, HTTP/1.1), anything else 404.

`--status N` answers every request with N instead (to make wrk count non-2xx replies). Prints the pong's
`listening on ADDR:PORT (http)` line, as the suite's pongs do, and serves until it is stopped.
"""

import argparse
import http.server
import socket


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default="127.0.0.1:0")
    parser.add_argument("--status", type=int, default=0)
    options, _ = parser.parse_known_args()  # --protocol http, --connections 64: the real pong's

    class Echo(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status = options.status or (200 if self.path == "/echo" else 404)
            self.wfile.write(f"HTTP/1.1 {status} X\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)

        def log_message(self, *args):
            pass

    host, port = options.address.rsplit(":", 1)
    server = http.server.ThreadingHTTPServer((host, int(port)), Echo)
    print(f"listening on {host}:{server.server_address[1]} (http)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
