#!/bin/bash
# The hub session, in the guest: dummy_hcd's root hub (per-port power switching) with g_serial's gadget on its
# port 1, which the guest's cdc_acm driver sees as /dev/ttyACM0. Cuts and restores the port with the kernel's
# sysfs `disable` file (as uhubctl does on Linux 6.0+), timed by port_events.py, CYCLES times; then the same
# with `blerig power BOARD off` and `on`, then once `blerig power BOARD cycle`, and `status` after each.
# Results go to $1: hub.txt (the root hub and port), sysfs-N.json, blerig-N.json, blerig-cycle.json, and each
# blerig command's output in power-*.log; then `blerig discover` → discovered.yaml, and `blerig power` with it.
#   dummy_hub_session.sh OUT CYCLES 'blerig power BOARD --rig RIG'   (the action is appended)
set -u
out="$1"
cycles="$2"
power="$3"
here="$(dirname "$0")"

modprobe -a dummy_hcd g_serial cdc_acm || exit 10
for _ in $(seq 400); do [ -e /dev/ttyACM0 ] && break; sleep 0.025; done
[ -e /dev/ttyACM0 ] || { echo "no /dev/ttyACM0 10 s after loading dummy_hcd and g_serial" >&2; exit 11; }

# The port the gadget hangs on: the tty's USB device is <bus>-<port>, its parent the root hub usb<bus>.
device=$(basename "$(dirname "$(readlink -f /sys/class/tty/ttyACM0/device)")")
bus=${device%%-*}
port=${device#*-}
disable=$(ls -d /sys/bus/usb/devices/usb"$bus"/*/usb"$bus"-port"$port"/disable 2>/dev/null | head -1)
[ -n "$disable" ] || { echo "no sysfs disable file for usb$bus port $port" >&2; exit 12; }
echo "device=$device hub=usb$bus port=$port disable=$disable" >"$out/hub.txt"
echo "product=$(cat /sys/bus/usb/devices/"$device"/product 2>/dev/null)" >>"$out/hub.txt"

for cycle in $(seq "$cycles"); do
    python3 "$here/port_events.py" --path /dev/ttyACM0 --off "write:$disable=1" --on "write:$disable=0" \
        --timeout 10 >"$out/sysfs-$cycle.json" || exit 13
done

for cycle in $(seq "$cycles"); do
    python3 "$here/port_events.py" --path /dev/ttyACM0 --off "$power off >>$out/power-off.log 2>&1" \
        --on "$power on >>$out/power-on.log 2>&1" --timeout 20 >"$out/blerig-$cycle.json" || exit 14
    $power status >>"$out/power-status.log" 2>&1
done
python3 "$here/port_events.py" --path /dev/ttyACM0 --cycle \
    --off "$power cycle --off-for 500ms >$out/power-cycle.log 2>&1" \
    --timeout 20 >"$out/blerig-cycle.json" || exit 15
$power status >>"$out/power-status.log" 2>&1

# blerig discover writes the gadget into a rig skeleton, whose power binding blerig power then uses.
blerig=${power%% *}
"$blerig" discover --output "$out/discovered.yaml" 2>"$out/discover.err"
echo $? >"$out/discover.rc"
"$blerig" power board-01 --rig "$out/discovered.yaml" status >"$out/discovered-power.log" 2>&1
echo $? >"$out/discovered-power.rc"
exit 0
