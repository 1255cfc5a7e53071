#!/usr/bin/env python3
"""The 1200-baud touch on a port another program holds open (the console under test), inside the guest: sets the
tty to 1200 baud and drops DTR through a second descriptor, as root (TIOCEXCL does not stop root). The lines and
the rate belong to the tty, not to the descriptor, so the board sees SET_LINE_CODING 1200 and DTR falling, and
leaves the bus; closing this descriptor is not the last close, so it moves no line itself.

    touch_held_port.py /dev/ttyACM0

Stdlib only (it runs under TCG).
"""
import fcntl
import os
import struct
import sys
import termios


def main():
    path = sys.argv[1]
    descriptor = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        attributes = termios.tcgetattr(descriptor)
        attributes[4] = attributes[5] = termios.B1200
        termios.tcsetattr(descriptor, termios.TCSANOW, attributes)
        fcntl.ioctl(descriptor, termios.TIOCMBIC, struct.pack("I", termios.TIOCM_DTR))
    finally:
        os.close(descriptor)


if __name__ == "__main__":
    main()
