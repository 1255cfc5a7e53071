# Sourced by the bluez scripts: types a line on every served board's console. The consoles live on the host; the
# kernel tier's ServedConsoleRelay watches OUT/console.request, types the line and answers in OUT/console.done.
# Needs `out` and `stamp` from the sourcing script.
served_console() {
    rm -f "$out/console.done"
    echo "$1" >"$out/console.request.tmp" && mv "$out/console.request.tmp" "$out/console.request"
    for _ in $(seq 200); do [ -e "$out/console.done" ] && break; sleep 0.05; done
    stamp "console-$1 $(cat "$out/console.done" 2>/dev/null || echo 'no answer within 10 s')"
}
