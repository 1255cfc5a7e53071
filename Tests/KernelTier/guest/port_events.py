#!/usr/bin/env python3
"""Times a device leaving and coming back, inside the guest: does the off action, waits until PATH is gone, does
the on action (if any), waits until a device matching BACK exists again, and prints one JSON line:

    {"gone_s": 0.012, "back_s": 0.44, "back": "/dev/ttyACM0", "usb_product": "005a", ...}

    port_events.py --path /dev/ttyACM0 --off 'write:/sys/bus/usb/devices/usb1-port1/disable=1' \
        --on 'write:/sys/bus/usb/devices/usb1-port1/disable=0' [--back '/dev/ttyACM*'] [--timeout 10]

An action is `write:FILE=VALUE` (written from here: no process start in the timing) or a shell command. gone_s runs
from the start of the off action, back_s from the start of the on action (from the device being gone when there
is no on action). With --cycle the off action is one command that takes the device away and brings it back
(`blerig power BOARD cycle`): it runs in the background while the device is watched, back_s counts from the
device being gone, and its exit status is `action_rc`. Exits 1 when a step times out, with what was seen.
Stdlib only (it runs under TCG).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import time


def act(action):
    if action.startswith("write:"):
        path, _, value = action[len("write:"):].rpartition("=")
        with open(path, "w") as target:
            target.write(value)
    else:
        return subprocess.run(action, shell=True).returncode
    return 0


def wait(predicate, timeout, poll):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(poll)
    return None


def usb_product(tty):
    """idProduct of the USB device behind a tty, read from sysfs."""
    try:
        device = os.path.realpath(f"/sys/class/tty/{os.path.basename(tty)}/device")
        with open(os.path.join(os.path.dirname(device), "idProduct")) as product:
            return product.read().strip()
    except OSError:
        return None


def cycle(args, result, start):
    action = subprocess.Popen(args.off, shell=True)
    if not wait(lambda: not os.path.exists(args.path), args.timeout, args.poll):
        result["error"] = f"{args.path} still there {args.timeout} s after the cycle started"
    else:
        gone = time.monotonic()
        result["gone_s"] = round(gone - start, 4)
        back = wait(lambda: sorted(glob.glob(args.back or args.path)), args.timeout, args.poll)
        if back:
            result["back_s"] = round(time.monotonic() - gone, 4)
            result["back"] = back[0]
        else:
            result["error"] = f"nothing matching {args.back or args.path} {args.timeout} s after it left"
    result["action_rc"] = action.wait()
    result["action_s"] = round(time.monotonic() - start, 4)
    print(json.dumps(result, sort_keys=True))
    sys.exit(1 if "error" in result else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", required=True)
    parser.add_argument("--off", required=True)
    parser.add_argument("--on")
    parser.add_argument("--back", help="glob of the device that counts as back (default: --path)")
    parser.add_argument("--timeout", type=float, default=10)
    parser.add_argument("--poll", type=float, default=0.002)
    parser.add_argument("--cycle", action="store_true", help="--off takes the device away and brings it back")
    args = parser.parse_args()
    result = {"path": args.path, "product_before": usb_product(args.path)}
    start = time.monotonic()
    if args.cycle:
        cycle(args, result, start)
        return
    result["off_rc"] = act(args.off)
    result["off_action_s"] = round(time.monotonic() - start, 4)
    if not wait(lambda: not os.path.exists(args.path), args.timeout, args.poll):
        result["error"] = f"{args.path} still there {args.timeout} s after the off action"
        print(json.dumps(result, sort_keys=True))
        sys.exit(1)
    gone = time.monotonic()
    result["gone_s"] = round(gone - start, 4)
    on_start = time.monotonic()
    if args.on:
        result["on_rc"] = act(args.on)
        result["on_action_s"] = round(time.monotonic() - on_start, 4)
    else:
        on_start = gone
    back = wait(lambda: sorted(glob.glob(args.back or args.path)), args.timeout, args.poll)
    if not back:
        result["error"] = f"nothing matching {args.back or args.path} {args.timeout} s after it left"
        print(json.dumps(result, sort_keys=True))
        sys.exit(1)
    result["back_s"] = round(time.monotonic() - on_start, 4)
    result["back"] = back[0]
    result["usb_product"] = usb_product(back[0])
    print(json.dumps(result, sort_keys=True))


if __name__ == "__main__":
    main()
