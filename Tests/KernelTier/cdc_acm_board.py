#!/usr/bin/env python3
"""A USB/IP CDC-ACM board on the host side of the kernel tier: what the guest's cdc_acm driver sees as
/dev/ttyACM0 once `usbip attach` imported it, with an ESP32's reset wiring behind its modem lines and an Arduino's
1200-baud touch.

    cdc_acm_board.py --log events.jsonl [--vid 0x1a86 --pid 0x55d3] [--bootloader-pid 0x005a]

- Every SET_CONTROL_LINE_STATE (DTR bit 0, RTS bit 1) and SET_LINE_CODING is logged, one JSON line each, with
  the host's CLOCK_MONOTONIC time in seconds (`t`), as the device received it.
- The reset wiring is esptool's model: DTR drives IO0 and RTS drives EN, both active low (a line the host sets is
  0 V). EN going low → high is a reset: with IO0 high the board boots its application (an ESP32 ROM banner and
  the application's first lines on bulk-in), with IO0 low it waits in download mode. Each boot is logged.
- The 1200-baud touch: when DTR drops while the line coding is 1200 baud, the board leaves the bus (the guest's
  USB/IP connection is closed) and comes back with --bootloader-pid, as an Arduino Nano 33 BLE's bootloader
  does. A second touch in the bootloader brings the application's PID back.
- A console: the line `status` typed on bulk-out is answered with `status: mode=run pid=55d3` (the firmware
  running and the PID it enumerated with), and logged as a `command` event; other bytes are logged by size only.

The default VID:PID (1A86:55D3, WCH CH343, a CDC-ACM USB-UART bridge on ESP32 boards) makes esptool use its
UART-bridge resets (UnixTight, Classic); 303A:1001 would make it use the USB-JTAG-serial one.

A second TCP port takes phase marks: each line a client sends is logged as `{"event": "mark", "name": line}` with
the host's time, and answered with `ok`, so a guest can cut the log into phases on the host's clock.

Prints `READY {"port": N, "marks_port": M}` once both listen (127.0.0.1, free ports); exits when stdin closes.
Run with the kernel venv's Python (usbip 0.7.0).
"""
import argparse
import json
import os
import socket
import sys
import threading
import time

from usbip import protocol
from usbip.classes.device import CDCACM
from usbip.device import USBDevice
from usbip.transport import Transport

SET_LINE_CODING = 0x20
SET_CONTROL_LINE_STATE = 0x22

RUN_BANNER = [
    "ets Jul 29 2019 12:21:46",
    "",
    "rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)",
    "configsip: 0, SPIWP:0xee",
    "mode:DIO, clock div:2",
    "entry 0x400805e4",
    "I (31) boot: ESP-IDF v5.1.2 2nd stage bootloader",
    "esp-point 1.4.0 ready",
]
DOWNLOAD_BANNER = [
    "ets Jul 29 2019 12:21:46",
    "",
    "rst:0x1 (POWERON_RESET),boot:0x3 (DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2))",
    "waiting for download",
]


class EventLog:
    """JSON lines with the host's monotonic time, flushed one by one so a reader sees them at once."""

    def __init__(self, path):
        self.file = open(path, "a", buffering=1)
        self.lock = threading.Lock()

    def write(self, event, **fields):
        with self.lock:
            record = {"t": round(time.monotonic(), 6), "event": event, **fields}
            self.file.write(json.dumps(record, sort_keys=True) + "\n")


class DroppableUSBIP(Transport):
    """usbip's TCP server, except that it keeps its connections so the board can leave the bus: closing them is
    what the guest's vhci-hcd sees when a device is unplugged."""

    def __init__(self, log):
        self.log = log
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        self.port = self.server.getsockname()[1]
        self.connections = []
        self.lock = threading.Lock()
        self.device = None

    def serve(self, dev):
        dev.busid = dev.busid or "1-1"
        dev.busnum, dev.devnum = 1, 2
        self.device = dev
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.connections.append(connection)
            threading.Thread(target=self.serve_one, args=(connection,), daemon=True).start()

    def serve_one(self, connection):
        self.log.write("connection", pid=f"{self.device.pid:04x}")
        protocol.serve_connection(connection, [self.device])
        with self.lock:
            if connection in self.connections:
                self.connections.remove(connection)
        self.log.write("connection_closed")

    def drop(self):
        """Leaves the bus: every import ends, as when the cable is pulled."""
        with self.lock:
            dropped, self.connections = self.connections, []
        for connection in dropped:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        return len(dropped)

    def stop(self, dev=None):
        self.server.close()
        self.drop()


class Board:
    """The board's state: its modem lines as the host set them, its line coding, and which firmware runs."""

    def __init__(self, args, log):
        self.args = args
        self.log = log
        self.dtr = False
        self.rts = False
        self.baud = 115200
        self.mode = "run"
        self.typed = b""
        self.lock = threading.Lock()
        self.transport = DroppableUSBIP(log)
        self.device = self.make_device(args.pid)

    def make_device(self, pid):
        device = USBDevice(self.args.vid, pid, manufacturer="blerig kernel tier", product=self.args.product,
                           serial=self.args.serial)
        self.acm = CDCACM(on_rx=self.on_rx)
        device.add(self.acm)
        original = self.acm.comm.on_control
        device.on_control(self.acm.comm.interface_number, lambda setup, data=b"": self.on_control(
            original, setup, data))
        return device

    def on_rx(self, port, data):
        """Bytes from the host (esptool's SYNC frames, typed commands): logged by size; a typed `status` line is
        answered. Any byte that is not printable text ends the line being typed (SLIP frames are never commands)."""
        self.log.write("rx", bytes=len(data))
        for byte in bytes(data):
            if byte in (0x0A, 0x0D):
                if self.typed == b"status":
                    self.answer_status()
                self.typed = b""
            elif 0x20 <= byte < 0x7F and len(self.typed) < 64:
                self.typed += bytes([byte])
            else:
                self.typed = b""

    def answer_status(self):
        with self.lock:
            line = f"status: mode={self.mode} pid={self.device.pid:04x}"
        self.log.write("command", name="status", reply=line)
        self.acm.data.write((line + "\r\n").encode())

    def on_control(self, original, setup, data):
        with self.lock:
            if setup.bRequest == SET_CONTROL_LINE_STATE:
                self.lines(bool(setup.wValue & 0x01), bool(setup.wValue & 0x02))
            elif setup.bRequest == SET_LINE_CODING and len(data) >= 7:
                self.baud = int.from_bytes(bytes(data[0:4]), "little")
                self.log.write("line_coding", baud=self.baud, stop_bits=data[4], parity=data[5], data_bits=data[6])
        return original(setup, data)

    def lines(self, dtr, rts):
        en_before = not self.rts
        dtr_before = self.dtr
        self.dtr, self.rts = dtr, rts
        self.log.write("lines", dtr=dtr, rts=rts, en=not rts, io0=not dtr)
        if not en_before and not rts:
            self.boot("download" if dtr else "run")
        if dtr_before and not dtr and self.baud == 1200:
            threading.Thread(target=self.reenumerate, daemon=True).start()

    def boot(self, mode):
        self.log.write("boot", mode=mode)
        banner = RUN_BANNER if mode == "run" else DOWNLOAD_BANNER
        self.acm.data.write(("\r\n".join(banner) + "\r\n").encode())

    def reenumerate(self):
        """The 1200-baud touch: the firmware jumps to its bootloader, which enumerates with another PID."""
        time.sleep(self.args.touch_delay)
        with self.lock:
            self.mode = "bootloader" if self.mode == "run" else "run"
            pid = self.args.bootloader_pid if self.mode == "bootloader" else self.args.pid
            self.device.pid = pid
            self.dtr = self.rts = False
            self.baud = 115200
        dropped = self.transport.drop()
        self.log.write("reenumerate", mode=self.mode, pid=f"{pid:04x}", dropped=dropped)


class Marks:
    """The phase-mark listener: one line in, one `mark` event logged, `ok` back."""

    def __init__(self, log):
        self.log = log
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(connection,), daemon=True).start()

    def serve(self, connection):
        with connection, connection.makefile("rwb", buffering=0) as stream:
            for line in stream:
                self.log.write("mark", name=line.decode(errors="replace").strip())
                stream.write(b"ok\n")


def number(text):
    return int(text, 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log", required=True, help="the event log (JSON lines), appended to")
    parser.add_argument("--vid", type=number, default=0x1A86)
    parser.add_argument("--pid", type=number, default=0x55D3)
    parser.add_argument("--bootloader-pid", type=number, default=0x005A)
    parser.add_argument("--product", default="esp32 board")
    parser.add_argument("--serial", default="KT0001")
    parser.add_argument("--touch-delay", type=float, default=0.05,
                        help="seconds from the 1200-baud touch to leaving the bus")
    args = parser.parse_args()
    log = EventLog(args.log)
    board = Board(args, log)
    board.device.plug(via=board.transport)
    marks = Marks(log)
    log.write("ready", port=board.transport.port, vid=f"{args.vid:04x}", pid=f"{args.pid:04x}")
    ready = {"port": board.transport.port, "marks_port": marks.port, "log": args.log}
    sys.stdout.write(f"READY {json.dumps(ready, sort_keys=True)}\n")
    sys.stdout.flush()
    while os.read(sys.stdin.fileno(), 4096):
        pass
    board.transport.stop()


if __name__ == "__main__":
    main()
