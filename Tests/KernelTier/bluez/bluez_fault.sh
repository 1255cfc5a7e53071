#!/bin/bash
# The adapter goes away under a `kind: bluez` run, in the kernel tier's guest: a run starts whose board is looked for
# but never heard (its name is nobody's), and while preflight scans for it the process holding /dev/vhci (the bridge
# to Bumble's controller) is killed, so the kernel removes hci0 (mgmt Index Removed). blerig must stop the run as an
# infrastructure failure of the radio (exit 3), blaming no board: not the board it was scanning for either.
#
# The adapter goes while blerig holds no ATT socket. Debian's 6.1.192 kernel BUGs when an L2CAP socket is closed
# after its link went down (a double hci_chan_del, see docs/radios.md), and a link that the adapter's removal ends
# leaves blerig only a race to close first; a guest that lost it hung until the tier's timeout.
#   bluez_fault.sh OUT BLERIG DEVICE_NAME BRIDGE_PID
# Writes OUT/fault-run/ (the run's reports), fault-run.out/.err/.rc, and the times (guest uptime) to times.txt.
set -u
out="$1"
blerig="$2"
device="$3"
bridge="$4"
uptime_s() { cut -d' ' -f1 /proc/uptime; }
stamp() { echo "$1 $(uptime_s)" >>"$out/times.txt"; }

cat >"$out/fault-rig.yaml" <<YAML
rig: kernel-tier-bluez-fault
radio: {kind: bluez, adapter: hci0}
boards:
  - id: esp-01
    profile: esp-point
    match: {name: $device-unheard}
suites:
  - {handshake: {connections: 1000}}
YAML

stamp fault-start
"$blerig" run "$out/fault-rig.yaml" --out "$out/fault-run" --history /tmp/fault-history.sqlite \
    >"$out/fault-run.out" 2>"$out/fault-run.err" &
run=$!
# The board's lease is the last line before preflight starts scanning for it; it scans for 10 s before blaming the
# board, so the adapter goes 3 s into that.
for _ in $(seq 600); do
    grep -qs "^esp-01: leased" "$out/fault-run.out" && break
    kill -0 $run 2>/dev/null || break
    sleep 0.1
done
stamp scanning
sleep 3
kill "$bridge"
stamp bridge-killed
for _ in $(seq 200); do [ -e /sys/class/bluetooth/hci0 ] || break; sleep 0.05; done
stamp "hci0-gone $([ -e /sys/class/bluetooth/hci0 ] && echo no || echo yes)"
wait $run
echo $? >"$out/fault-run.rc"
stamp fault-run
