#!/usr/bin/env python3
"""Boots Debian's kernel under qemu with the host's root shared read-only, runs one command inside, and returns
its exit status and output.

    boot.py [--timeout 120] [--port NAME=SOCKET]... [--forward GUESTPORT=HOSTPORT]... -- 'blerig adapters'

The command runs as root in bash, in the current directory (or --cwd), with the host's binaries, venvs and apt
tools all there read-only (a checkout under /tmp too); /tmp, /run, /etc and /usr/lib are writable and vanish with
the guest. Its stdout and stderr are printed as they were, and boot.py exits with its status; 124 when --timeout
passed (qemu is killed), 125 when the guest never ran or finished the command (the console log's tail says why).

What it needs is made once by `make kernel-deps` under .cache/kernel-tier/ (see docs/kernel-tier.md): the kernel
package unpacked in root/; the initramfs (busybox and the 9p modules) is built here on first use and cached.

- --port NAME=SOCKET: a virtio-serial port, /dev/virtio-ports/NAME in the guest, connected to the Unix socket
  SOCKET that a host process already listens on.
- --forward GUESTPORT=HOSTPORT: guest TCP connections to 10.0.2.100:GUESTPORT reach 127.0.0.1:HOSTPORT on the
  host (qemu user networking, restricted: the guest reaches nothing else).
- --out DIR: keep the guest's files there (stdout, stderr, console.log, .kt/); a temporary folder otherwise.
- --timing FILE: write the measured times as JSON (boot_s: qemu start → command start, command_s, total_s).
"""
import argparse
import gzip
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
CACHE = Path(os.environ.get("KERNEL_TIER_CACHE", REPO / ".cache" / "kernel-tier"))
# What stage 1 loads to mount the host's root and the overlays, in modules.dep order.
INITRAMFS_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay"]


class BootError(Exception):
    """Something the tier needs is missing or broken; the message says what and what to do."""


def kernel_release():
    modules = CACHE / "root" / "lib" / "modules"
    releases = sorted(p.name for p in modules.iterdir()) if modules.is_dir() else []
    if len(releases) != 1:
        raise BootError(f"{modules}/ should hold one kernel release, found {releases or 'none'}: run make kernel-deps")
    release = releases[0]
    vmlinuz = CACHE / "root" / "boot" / f"vmlinuz-{release}"
    if not vmlinuz.is_file():
        raise BootError(f"{vmlinuz} is missing: run make kernel-deps")
    return release, vmlinuz


def module_paths(release, names):
    """The modules' files and their dependencies, each after what it depends on (from modules.dep)."""
    base = CACHE / "root" / "lib" / "modules" / release
    deps = {}
    for line in (base / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[path] = rest.split()
    by_name = {Path(p).name.removesuffix(".ko").replace("-", "_"): p for p in deps}
    ordered = []

    def visit(path):
        if path in ordered:
            return
        for dep in deps[path]:
            visit(dep)
        ordered.append(path)

    for name in names:
        if name not in by_name:
            raise BootError(f"module {name} is not in {base}/modules.dep")
        visit(by_name[name])
    return [base / p for p in ordered]


def cpio_newc(entries):
    """A newc cpio archive: entries are (name, mode, data or None, rdev major, rdev minor)."""
    out = bytearray()
    for ino, (name, mode, data, major, minor) in enumerate(entries + [("TRAILER!!!", 0, None, 0, 0)], 1):
        data = data or b""
        encoded = name.encode() + b"\0"
        fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, major, minor, len(encoded), 0]
        out += b"070701" + b"".join(b"%08X" % f for f in fields) + encoded
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def initramfs(release):
    """Builds (once per release and init script) the initramfs: busybox, stage 1, the 9p and overlay modules."""
    init = (HERE / "guest" / "init").read_bytes()
    busybox = Path("/bin/busybox")
    if not busybox.is_file():
        raise BootError("/bin/busybox is missing: run make kernel-deps (Debian's busybox-static)")
    modules = module_paths(release, INITRAMFS_MODULES)
    key = hashlib.sha256(init + release.encode() + busybox.read_bytes()).hexdigest()[:12]
    target = CACHE / f"initramfs-{release}-{key}.cpio.gz"
    if target.is_file():
        return target
    entries = [("bin", 0o40755, None, 0, 0), ("dev", 0o40755, None, 0, 0), ("modules", 0o40755, None, 0, 0)]
    entries.append(("dev/console", 0o20600, None, 5, 1))
    entries.append(("bin/busybox", 0o100755, busybox.read_bytes(), 0, 0))
    entries.append(("init", 0o100755, init, 0, 0))
    names = []
    for path in modules:
        name = path.name.removesuffix(".ko")
        names.append(name)
        entries.append((f"modules/{name}.ko", 0o100644, path.read_bytes(), 0, 0))
    entries.append(("modules.list", 0o100644, "\n".join(names).encode() + b"\n", 0, 0))
    for stale in CACHE.glob(f"initramfs-{release}-*.cpio.gz"):
        stale.unlink()
    partial = target.with_suffix(".partial")
    partial.write_bytes(gzip.compress(cpio_newc(entries), compresslevel=1))
    partial.rename(target)
    return target


def qemu_command(args, release, vmlinuz, initrd, out):
    qemu = shutil.which("qemu-system-x86_64")
    if not qemu:
        raise BootError("qemu-system-x86_64 is missing: run make kernel-deps (Debian's qemu-system-x86)")
    modules = CACHE / "root" / "lib" / "modules" / release
    cmdline = " ".join([
        "console=ttyS0", "panic=-1", "rdinit=/init", *(["loglevel=7"] if args.verbose else ["quiet", "loglevel=4"]),
        f"kt.out={out}", f"kt.stage2={HERE / 'guest' / 'stage2.sh'}", f"kt.modules={modules}",
    ])
    command = [
        qemu, "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
        "-machine", "q35", "-accel", args.accel, "-cpu", "max" if args.accel == "tcg" else "host",
        "-smp", str(args.cpus), "-m", args.memory,
        "-kernel", str(vmlinuz), "-initrd", str(initrd), "-append", cmdline,
        "-chardev", f"file,id=console,path={out / 'console.log'}", "-serial", "chardev:console",
        "-fsdev", "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
        "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
        "-fsdev", f"local,id=results,path={out},security_model=none,multidevs=remap",
        "-device", "virtio-9p-pci,fsdev=results,mount_tag=results",
    ]
    if args.port:
        command += ["-device", "virtio-serial-pci,id=ports"]
        for index, spec in enumerate(args.port):
            name, _, socket = spec.partition("=")
            if not name or not socket:
                raise BootError(f"--port {spec!r}: expected NAME=SOCKET")
            if not Path(socket).exists():
                raise BootError(f"--port {spec!r}: nothing listens on {socket}")
            command += ["-chardev", f"socket,id=port{index},path={socket}",
                        "-device", f"virtserialport,bus=ports.0,chardev=port{index},name={name}"]
    if args.forward:
        relay = HERE / "tcp_relay.py"
        rules = []
        for spec in args.forward:
            guest, _, host = spec.partition("=")
            if not guest.isdigit() or not host.isdigit():
                raise BootError(f"--forward {spec!r}: expected GUESTPORT=HOSTPORT")
            rules.append(f"guestfwd=tcp:10.0.2.100:{guest}-cmd:{sys.executable} {relay} 127.0.0.1 {host}")
        command += ["-netdev", ",".join(["user,id=net0,restrict=on"] + rules),
                    "-device", "virtio-net-pci,netdev=net0"]
    return command


def run(args):
    release, vmlinuz = kernel_release()
    initrd = initramfs(release)
    out = Path(args.out).resolve() if args.out else Path(tempfile.mkdtemp(prefix="kernel-tier-"))
    kt = out / ".kt"
    shutil.rmtree(kt, ignore_errors=True)
    kt.mkdir(parents=True)
    for name in ("stdout", "stderr", "console.log"):
        (out / name).unlink(missing_ok=True)
    (kt / "command.sh").write_text(args.command + "\n")
    env = [f"KT_CWD={shlex.quote(str(Path(args.cwd).resolve()))}"]
    env += [f"{k}={shlex.quote(v)}" for k, v in (e.split("=", 1) for e in args.env)]
    (kt / "env").write_text("\n".join(env) + "\n")
    (kt / "ports").write_text("\n".join(p.partition("=")[0] for p in args.port) + "\n")
    if args.forward:
        (kt / "network").write_text("on\n")

    command = qemu_command(args, release, vmlinuz, initrd, out)
    if args.nice:
        command = ["nice", "-n", str(args.nice)] + command
    start = time.monotonic()
    started = None
    qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    timed_out = False
    while qemu.poll() is None:
        now = time.monotonic()
        if started is None and (kt / "started").exists():
            started = now
        if now - start > args.timeout:
            timed_out = True
            os.killpg(qemu.pid, signal.SIGKILL)
            qemu.wait()
            break
        time.sleep(0.02)
    end = time.monotonic()
    qemu_output = qemu.stdout.read().decode(errors="replace")

    for name, stream in (("stdout", sys.stdout), ("stderr", sys.stderr)):
        path = out / name
        if path.exists():
            stream.write(path.read_text(errors="replace"))
            stream.flush()
    timing = {
        "boot_s": round(started - start, 3) if started else None,
        "command_s": round(end - started, 3) if started else None,
        "total_s": round(end - start, 3),
    }
    if args.timing:
        Path(args.timing).write_text(json.dumps(timing) + "\n")
    summary = (f"kernel-tier: boot {timing['boot_s']} s (qemu start → command), command {timing['command_s']} s, "
               f"total {timing['total_s']} s")
    rc_file = kt / "rc"
    if timed_out:
        print(f"{summary}\nkernel-tier: timed out after {args.timeout} s; qemu killed", file=sys.stderr)
        tail(out, qemu_output)
        return 124
    if not rc_file.exists():
        print(f"{summary}\nkernel-tier: the guest did not finish the command (qemu exit {qemu.returncode})",
              file=sys.stderr)
        tail(out, qemu_output)
        return 125
    if (kt / "guest-errors").exists():
        sys.stderr.write((kt / "guest-errors").read_text())
    if not args.quiet:
        print(summary, file=sys.stderr)
    rc = int(rc_file.read_text().strip())
    if not args.out:
        shutil.rmtree(out, ignore_errors=True)
    return rc


def tail(out, qemu_output):
    console = out / "console.log"
    lines = console.read_text(errors="replace").splitlines()[-30:] if console.exists() else []
    print("kernel-tier: console tail:\n  " + "\n  ".join(lines), file=sys.stderr)
    if qemu_output.strip():
        print(f"kernel-tier: qemu said:\n{qemu_output}", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=120, help="hard limit in seconds (default 120)")
    parser.add_argument("--port", action="append", default=[], metavar="NAME=SOCKET")
    parser.add_argument("--forward", action="append", default=[], metavar="GUESTPORT=HOSTPORT")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--cwd", default=os.getcwd())
    parser.add_argument("--out", help="folder for the guest's files (kept); a temporary one otherwise")
    parser.add_argument("--timing", help="write the measured times here as JSON")
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--memory", default="1G")
    parser.add_argument("--accel", default=os.environ.get("KERNEL_TIER_ACCEL", "tcg"),
                        help="tcg (default; /dev/kvm here is PVM, which cannot run a stock kernel) or kvm")
    parser.add_argument("--nice", type=int, default=int(os.environ.get("KERNEL_TIER_NICE", "0")))
    parser.add_argument("--quiet", action="store_true", help="do not print the timing line")
    parser.add_argument("--verbose", action="store_true", help="the kernel's messages in console.log")
    parser.add_argument("command", nargs="+", help="the command, run by bash in the guest")
    args = parser.parse_args()
    args.command = " ".join(args.command)
    try:
        sys.exit(run(args))
    except BootError as error:
        print(f"kernel-tier: {error}", file=sys.stderr)
        sys.exit(125)


if __name__ == "__main__":
    main()
