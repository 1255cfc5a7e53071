#!/usr/bin/env python3
"""Guest side of hci_vhci: makes this process the controller of a new hciN (writes 0xff 0x00 to /dev/vhci) and
copies H4 packets between /dev/vhci and a virtio-serial port whose host end is Bumble's controller
(Tests/KernelTier/hci_link.py).

    vhci_bridge.py /dev/virtio-ports/hci [READY_FILE]

/dev/vhci takes one whole packet per write, so the port's byte stream is framed here; each read of /dev/vhci
gives one packet. Prints `hciN` (and writes it to READY_FILE) once the kernel made the device. Stdlib only: it
runs in the guest, where importing more costs seconds under TCG.
"""
import os
import selectors
import sys
import time

# H4 packet type → (header length, offset and size of the payload length in the header).
HEADERS = {0x01: (3, 2, 1), 0x02: (4, 2, 2), 0x03: (3, 2, 1), 0x04: (2, 1, 1), 0x05: (4, 2, 2)}


class H4Framer:
    """Cuts a byte stream into whole H4 packets (type byte included)."""

    def __init__(self):
        self.buffer = bytearray()

    def feed(self, data):
        self.buffer += data
        packets = []
        while self.buffer:
            kind = self.buffer[0]
            if kind not in HEADERS:
                raise ValueError(f"H4 packet type 0x{kind:02x} is unknown; stream out of step")
            header, offset, size = HEADERS[kind]
            if len(self.buffer) < 1 + header:
                break
            length = int.from_bytes(self.buffer[1 + offset:1 + offset + size], "little")
            if kind == 0x05:
                length &= 0x3FFF
            total = 1 + header + length
            if len(self.buffer) < total:
                break
            packets.append(bytes(self.buffer[:total]))
            del self.buffer[:total]
        return packets


def main():
    port_path = sys.argv[1]
    ready_file = sys.argv[2] if len(sys.argv) > 2 else None
    vhci = os.open("/dev/vhci", os.O_RDWR)
    # Vendor packet 0xff with opcode 0x00: create a primary controller. The kernel answers with a vendor
    # packet: 0xff <opcode> <device index, le16>.
    os.write(vhci, bytes([0xFF, 0x00]))
    answer = os.read(vhci, 64)
    if len(answer) != 4 or answer[0] != 0xFF:
        sys.exit(f"vhci_bridge: /dev/vhci answered {answer.hex()} to the create request")
    name = f"hci{int.from_bytes(answer[2:4], 'little')}"
    port = os.open(port_path, os.O_RDWR)
    print(name, flush=True)
    if ready_file:
        with open(ready_file, "w") as ready:
            ready.write(name + "\n")
    framer = H4Framer()
    selector = selectors.DefaultSelector()
    selector.register(vhci, selectors.EVENT_READ, "vhci")
    selector.register(port, selectors.EVENT_READ, "port")
    while True:
        for key, _ in selector.select():
            if key.data == "vhci":
                packet = os.read(vhci, 4096)
                if not packet:
                    return
                view = memoryview(packet)
                while view:
                    view = view[os.write(port, view):]
            else:
                data = os.read(port, 65536)
                if not data:
                    time.sleep(0.05)  # the host side is not connected (yet): nothing to frame
                for packet in framer.feed(data):
                    os.write(vhci, packet)


if __name__ == "__main__":
    main()
