#!/usr/bin/env python3
"""One guest TCP connection to a host port: qemu's user networking starts this for each connection the guest
makes to a forwarded port (guestfwd ... -cmd:), with the connection on stdin and stdout.

    tcp_relay.py HOST PORT
"""
import os
import selectors
import socket
import sys


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    try:
        upstream = socket.create_connection((host, port), timeout=5)
    except OSError as error:
        print(f"tcp_relay: cannot reach {host}:{port}: {error}", file=sys.stderr)
        sys.exit(1)
    upstream.settimeout(None)
    upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    selector = selectors.DefaultSelector()
    selector.register(0, selectors.EVENT_READ, "guest")
    selector.register(upstream, selectors.EVENT_READ, "host")
    while True:
        for key, _ in selector.select():
            if key.data == "guest":
                data = os.read(0, 65536)
                if not data:
                    upstream.shutdown(socket.SHUT_WR)
                    selector.unregister(0)
                    continue
                upstream.sendall(data)
            else:
                data = upstream.recv(65536)
                if not data:
                    return
                view = memoryview(data)
                while view:
                    view = view[os.write(1, view):]


if __name__ == "__main__":
    main()
