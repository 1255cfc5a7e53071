#!/usr/bin/env python3
"""esptool's own reset strategies (`esptool.reset` from the kernel venv, nobody here wrote them) played on the
board REPEAT times each, every run marked in the board's log on the host's clock: `esptool UnixTight 1`,
`esptool USBJTAGSerial 1`, `esptool Classic 1`, `esptool HardReset 1`, `esptool UnixTight 2`, ... These are the
references blerig's presets are compared with, step by step.

    esptool_resets.py --port /dev/ttyACM0 --marks 10.0.2.100:3241 [--repeat 3]

The port is opened once, as esptool opens it (pyserial, exclusive). HardReset runs right after Classic, as esptool
runs it after talking to a chip: from DTR released (from a fresh open, with DTR still up, its `R1|W0.1|R0` never
pulls EN on a DevKit). Run with the kernel venv's Python.
"""
import argparse
import socket

import serial
from esptool.reset import ClassicReset, HardReset, UnixTightReset, USBJTAGSerialReset


class Marks:
    """A connection to the board's marks port: one line out, `ok` back."""

    def __init__(self, address):
        host, _, port = address.rpartition(":")
        self.stream = socket.create_connection((host, int(port))).makefile("rwb", buffering=0)

    def __call__(self, name):
        self.stream.write(f"{name}\n".encode())
        reply = self.stream.readline().strip()
        if reply != b"ok":
            raise SystemExit(f"the board did not take mark {name!r}: {reply!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", required=True)
    parser.add_argument("--marks", required=True, help="HOST:PORT of the board's marks listener")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    mark = Marks(args.marks)
    port = serial.Serial(args.port, 115200, exclusive=True)
    strategies = [
        ("UnixTight", lambda: UnixTightReset(port, 0.05)),
        ("USBJTAGSerial", lambda: USBJTAGSerialReset(port)),
        ("Classic", lambda: ClassicReset(port, 0.05)),
        ("HardReset", lambda: HardReset(port)),
    ]
    for run in range(1, args.repeat + 1):
        for name, strategy in strategies:
            mark(f"esptool {name} {run}")
            strategy()()
    port.close()


if __name__ == "__main__":
    main()
