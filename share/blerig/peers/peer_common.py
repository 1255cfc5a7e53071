"""What every Bumble peer of the interop tier shares: the stdin lifeline, logging to stderr, machine-readable
lines on stdout, and an HCI transport that does not stall against rootcanal.

Run the peers with the interop venv's interpreter (`make interop-deps` makes `.venv-interop/`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import sys
from typing import Any

from bumble.transport import open_transport
from bumble.transport.common import StreamPacketSink, StreamPacketSource, Transport

log = logging.getLogger("peer")


def setup_logging(name: str) -> None:
    """Logs go to stderr, one line each, with the peer's name: stdout carries only machine-readable lines."""
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("BUMBLE_LOGLEVEL", "INFO").upper(),
        format=f"%(asctime)s.%(msecs)03d {name} %(levelname)s %(name)s: %(message)s",
        datefmt="%H:%M:%S",
    )


def emit(kind: str, payload: dict[str, Any]) -> None:
    """One machine-readable line on stdout: `KIND {json}` (READY, EVENT, RESULT, ERROR), flushed at once."""
    sys.stdout.write(f"{kind} {json.dumps(payload, sort_keys=True)}\n")
    sys.stdout.flush()


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hci",
        required=True,
        help="HCI transport: tcp:HOST:PORT (rootcanal's HCI port) or any Bumble transport spec",
    )
    parser.add_argument(
        "--no-lifeline",
        action="store_true",
        help="keep running when stdin closes (for running by hand with stdin not a terminal)",
    )


def watch_lifeline(enabled: bool) -> None:
    """Exits the process as soon as stdin reaches end-of-file: the process that started this peer holds the
    other end of stdin and never writes to it, so end-of-file means it is gone (or wants this peer gone)."""
    if not enabled:
        return
    loop = asyncio.get_running_loop()
    fd = sys.stdin.fileno()

    def readable() -> None:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            log.info("stdin closed: exiting")
            logging.shutdown()
            sys.stdout.flush()
            os._exit(0)

    loop.add_reader(fd, readable)


class _QuickAckPacketSource(StreamPacketSource):
    """rootcanal writes each H4 packet in two send() calls without TCP_NODELAY, so the second waits for the
    first one's ACK: with the kernel's delayed ACK every HCI round trip would stall ~40 ms. Re-arming
    TCP_QUICKACK after every read makes the ACK immediate."""

    sock: Any = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.sock = transport.get_extra_info("socket")
        if self.sock is not None:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._quickack()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._quickack()

    def connection_lost(self, exc: Exception | None) -> None:
        log.info("HCI connection lost: %s", exc)
        self.on_transport_lost()

    def _quickack(self) -> None:
        if self.sock is not None:
            try:
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            except OSError:
                pass


async def open_hci(spec: str) -> Transport:
    """`tcp:HOST:PORT` opens a TCP connection that acknowledges at once; anything else goes to Bumble."""
    if spec.startswith("tcp:"):
        host, port = spec[len("tcp:") :].rsplit(":", maxsplit=1)
        tcp, source = await asyncio.get_running_loop().create_connection(
            _QuickAckPacketSource, host=host, port=int(port)
        )
        return Transport(source, StreamPacketSink(tcp))
    return await open_transport(spec)


def crc32(data: bytes, crc: int = 0) -> int:
    """CRC-32/ISO-HDLC, the zlib one (check value for b"123456789" is 0xCBF43926)."""
    import zlib

    return zlib.crc32(data, crc) & 0xFFFFFFFF
