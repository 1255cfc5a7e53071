#!/usr/bin/env python3
"""Bumble as the reference central of `blerig bench hci`: the same handshakes, writes and notification stream as
blerig's central runs against peripheral.py, timed and counted the same way, so the two can be compared.

    .venv-interop/bin/python bench_central.py --hci tcp:127.0.0.1:PORT --target ADDRESS
        [--handshakes 50] [--writes 50] [--write-size 20] [--stream-ms 3000] [--mtu 247] [--tick-ms 1]
        [--phase-seed 1] [--control FIFO]

A handshake is: connect (request → link up), Exchange MTU, discover all primary services, the characteristics of
each, the descriptors of notify_source, then its CCCD written (subscribed); then disconnect and wait for the link to
go down. Characteristics and descriptors are discovered with blerig's stopping rule (see below), so both centrals
send the same requests; every ATT request the GATT client sends is counted. CPU time is `time.process_time()` over
the whole handshake loop, which one untimed handshake precedes. Then, on one more link set up the same way (not
measured): `--writes` write requests to `echo`, each timed; and on another, the STREAM command for `--stream-ms`,
whose values are counted until the end-of-stream value. Before each write the central waits a random part of rootcanal's tick
(`--tick-ms`, drawn from `--phase-seed`): rootcanal delivers on its tick, and a write sent right after the previous
response would measure two ticks less the central's own loop rather than its host.

With `--control FIFO` the process stays up for a whole `blerig bench hci` run, which times each central's handshakes
and writes in parts, the centrals taking turns. After READY it reads one command per line from the FIFO:
`HANDSHAKES n` runs one untimed handshake (the part's first meets a peripheral another central has just left), times
n more and prints `PART {json}` with RESULT's handshake fields; `WRITES n` times n writes on a link of their own, the
waits going on from the previous part's, and prints `PART {json}` with `write_ms` and `mtu`; `TAIL` runs the stream
and prints `RESULT {json}` with `stream` and `mtu`, then the process exits. The fields a line does not measure are
empty or zero. `--handshakes` and `--writes` are not used then.

Prints `READY {json}` once its host is up, then one `RESULT {json}` (every sample in milliseconds, so the caller
computes the statistics for both centrals alike) and exits 0, or one `ERROR {"stage", "error"}` and exits 1.
Logs go to stderr. Exits when stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import logging
import os
import platform
import random
import secrets
import struct
import sys
import time
from typing import Any

from peer_common import add_common_arguments, emit, open_hci, setup_logging, watch_lifeline

from bumble import att, hci
from bumble.core import UUID
from bumble.device import Connection, Device, Peer
from bumble.gatt import GATT_CHARACTERISTIC_ATTRIBUTE_TYPE, GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR
from bumble.gatt_client import CharacteristicProxy, DescriptorProxy, ServiceProxy

log = logging.getLogger("bench_central")

ECHO = UUID("e5b1f003-7c3a-4f0e-9d2b-5a1c3e7f9b20")
NOTIFY_SOURCE = UUID("e5b1f006-7c3a-4f0e-9d2b-5a1c3e7f9b20")
COMMAND = UUID("e5b1f00b-7c3a-4f0e-9d2b-5a1c3e7f9b20")
STREAM = 0x04
END_OF_STREAM = 0xFFFFFFFF


class Failure(Exception):
    def __init__(self, stage: str, error: str) -> None:
        super().__init__(error)
        self.stage = stage


class Session:
    """One link after its handshake: the characteristics the measurements use, and the requests it took."""

    def __init__(self, connection: Connection, peer: Peer, requests: int, notify: CharacteristicProxy) -> None:
        self.connection = connection
        self.peer = peer
        self.requests = requests
        self.notify = notify
        self.values: list[tuple[float, bytes]] = []
        # Set when the end-of-stream value arrives, while a stream is measured.
        self.ended: asyncio.Future[None] | None = None
        self.characteristics = {c.uuid: c for s in peer.services for c in s.characteristics}

    def on_value(self, value: bytes) -> None:
        self.values.append((time.perf_counter(), bytes(value)))
        if self.ended is not None and value[:4] == b"\xff\xff\xff\xff" and not self.ended.done():
            self.ended.set_result(None)


def count_requests(peer: Peer) -> list[int]:
    """Counts every ATT request the link's GATT client sends (each goes through `send_request`)."""
    counter = [0]
    client = peer.gatt_client
    send_request = client.send_request

    async def counting(request: Any) -> Any:
        counter[0] += 1
        return await send_request(request)

    client.send_request = counting
    return counter


# Bumble's own discovery of characteristics and descriptors always continues until Attribute Not Found, one
# request more per service and per characteristic than blerig's, which stops when the last value (or descriptor)
# sits at the end of the range, as nothing can follow it. These two loops are Bumble's, with blerig's stopping
# rule, so that both centrals send the same requests; everything else is Bumble's GATT client as it is.


async def discover_characteristics(peer: Peer, service: ServiceProxy) -> list[CharacteristicProxy]:
    """Discover All Characteristics of a Service (Vol 3 Part G 4.6.1) with Bumble's client."""
    client = peer.gatt_client
    characteristics: list[CharacteristicProxy] = []
    start, end = service.handle, service.end_group_handle
    while start <= end:
        response = await client.send_request(
            att.ATT_Read_By_Type_Request(
                starting_handle=start, ending_handle=end, attribute_type=GATT_CHARACTERISTIC_ATTRIBUTE_TYPE
            )
        )
        if response.op_code == att.Opcode.ATT_ERROR_RESPONSE:
            if response.error_code != att.ATT_ATTRIBUTE_NOT_FOUND_ERROR:
                raise att.ATT_Error(error_code=response.error_code, message="discovering characteristics")
            break
        if not response.attributes:
            break
        for declaration, value in response.attributes:
            properties, handle = struct.unpack_from("<BH", value)
            if characteristics:
                characteristics[-1].end_group_handle = declaration - 1
            characteristics.append(CharacteristicProxy(client, handle, 0, UUID.from_bytes(value[3:]), properties))
        start = characteristics[-1].handle + 1
    if characteristics:
        characteristics[-1].end_group_handle = end
    service.characteristics = characteristics
    return characteristics


async def discover_descriptors(peer: Peer, characteristic: CharacteristicProxy) -> list[DescriptorProxy]:
    """Discover All Characteristic Descriptors (Vol 3 Part G 4.7.1) with Bumble's client."""
    client = peer.gatt_client
    descriptors: list[DescriptorProxy] = []
    start, end = characteristic.handle + 1, characteristic.end_group_handle
    while start <= end:
        response = await client.send_request(att.ATT_Find_Information_Request(starting_handle=start, ending_handle=end))
        if response.op_code == att.Opcode.ATT_ERROR_RESPONSE:
            if response.error_code != att.ATT_ATTRIBUTE_NOT_FOUND_ERROR:
                raise att.ATT_Error(error_code=response.error_code, message="discovering descriptors")
            break
        if not response.information:
            break
        for handle, uuid in response.information:
            descriptors.append(DescriptorProxy(client, handle, UUID.from_bytes(uuid)))
        start = descriptors[-1].handle + 1
    characteristic.descriptors = descriptors
    # Bumble's subscribe() discovers the descriptors again unless told they are known (its own discovery never
    # sets this flag).
    characteristic.descriptors_discovered = True
    return descriptors


async def handshake(device: Device, target: hci.Address, mtu: int) -> tuple[Session, float, float]:
    """Connects and subscribes as described above; returns the session and the connect and handshake times (s)."""
    began = time.perf_counter()
    try:
        connection = await device.connect(target, own_address_type=hci.OwnAddressType.RANDOM, timeout=10)
    except Exception as error:  # Bumble raises several kinds
        raise Failure("connect", f"connecting to {target}: {error!r}") from error
    connected = time.perf_counter()
    peer = Peer(connection)
    requests = count_requests(peer)
    try:
        await peer.request_mtu(mtu)
        services = await peer.discover_services()
        for service in services:
            await discover_characteristics(peer, service)
        notify = next((c for s in services for c in s.characteristics if c.uuid == NOTIFY_SOURCE), None)
        if notify is None:
            raise Failure("discover", f"no characteristic {NOTIFY_SOURCE} on {target}")
        await discover_descriptors(peer, notify)
        if notify.get_descriptor(GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR) is None:
            raise Failure("discover", f"{NOTIFY_SOURCE} has no CCCD")
        session = Session(connection, peer, 0, notify)
        await notify.subscribe(session.on_value)
    except Failure:
        raise
    except Exception as error:
        raise Failure("discover", repr(error)) from error
    subscribed = time.perf_counter()
    session.requests = requests[0]
    return session, connected - began, subscribed - began


async def disconnect(session: Session) -> None:
    """Disconnects and returns once the link is down (Bumble's disconnect waits for Disconnection Complete)."""
    await session.connection.disconnect()


NO_STREAM = {"values": 0, "bytes": 0, "gaps": 0, "seconds": 0, "size": 0}


async def warm_up(arguments: argparse.Namespace, device: Device) -> None:
    """One handshake, untimed: what only a fresh process's first one does (imports, first calls) is not counted;
    blerig's central warms up the same way."""
    session, _, _ = await handshake(device, hci.Address(arguments.target), arguments.mtu)
    await disconnect(session)


async def time_handshakes(arguments: argparse.Namespace, device: Device, count: int) -> dict[str, Any]:
    """`count` handshakes, each timed, and the process's CPU time over them: RESULT's handshake fields."""
    target = hci.Address(arguments.target)
    connect_ms: list[float] = []
    handshake_ms: list[float] = []
    requests: list[int] = []
    cpu_before = time.process_time()
    wall_before = time.perf_counter()
    for _ in range(count):
        session, connect, total = await handshake(device, target, arguments.mtu)
        connect_ms.append(connect * 1000)
        handshake_ms.append(total * 1000)
        requests.append(session.requests)
        await disconnect(session)
    return {
        "connect_ms": connect_ms,
        "handshake_ms": handshake_ms,
        "att_requests": requests,
        "cpu_s": time.process_time() - cpu_before,
        "loop_s": time.perf_counter() - wall_before,
    }


async def time_writes(
    arguments: argparse.Namespace, device: Device, count: int, phases: random.Random
) -> dict[str, Any]:
    """On one more link: `count` timed writes to echo, each after a wait drawn from `phases`: RESULT's `write_ms`."""
    session, _, _ = await handshake(device, hci.Address(arguments.target), arguments.mtu)
    echo = session.characteristics.get(ECHO)
    if echo is None:
        raise Failure("discover", "no echo characteristic")
    value = bytes(i & 0xFF for i in range(arguments.write_size))
    write_ms: list[float] = []
    # Each write starts at a random phase of rootcanal's tick (see the module's docstring). The wait blocks: asyncio
    # sleeps in whole milliseconds of epoll, which would put every write at the same phase; blerig's central blocks
    # its thread the same way.
    try:
        for _ in range(count):
            time.sleep(phases.uniform(0, arguments.tick_ms / 1000))
            began = time.perf_counter()
            await echo.write_value(value, with_response=True)
            write_ms.append((time.perf_counter() - began) * 1000)
    except Exception as error:
        raise Failure("write", repr(error)) from error
    await disconnect(session)
    return {"write_ms": write_ms, "mtu": session.connection.att_mtu}


async def time_stream(arguments: argparse.Namespace, device: Device) -> dict[str, Any]:
    """On one more link: the stream: RESULT's `stream` and `mtu`."""
    session, _, _ = await handshake(device, hci.Address(arguments.target), arguments.mtu)
    command = session.characteristics.get(COMMAND)
    if command is None:
        raise Failure("discover", "no command characteristic")
    stream = await measure_stream(session, command, arguments.stream_ms, session.connection.att_mtu - 3)
    await disconnect(session)
    return {"stream": stream, "mtu": session.connection.att_mtu}


async def run(arguments: argparse.Namespace, device: Device) -> dict[str, Any]:
    """Without --control: the untimed handshake, the timed ones, then the writes and the stream."""
    await warm_up(arguments, device)
    timed = await time_handshakes(arguments, device, arguments.handshakes)
    writes = await time_writes(arguments, device, arguments.writes, random.Random(arguments.phase_seed))
    return timed | writes | await time_stream(arguments, device)


class Commands:
    """The lines of the --control FIFO. Opened for reading and writing, so that it never reads end-of-file: blerig
    opens it only after READY, and the lifeline, not the FIFO, says when to go."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.buffer = b""
        self.lines: asyncio.Queue[str] = asyncio.Queue()
        asyncio.get_running_loop().add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        try:
            self.buffer += os.read(self.fd, 4096)
        except BlockingIOError:
            return
        *complete, self.buffer = self.buffer.split(b"\n")
        for line in complete:
            self.lines.put_nowait(line.decode("utf-8", "replace").strip())


async def serve(arguments: argparse.Namespace, device: Device, commands: Commands) -> dict[str, Any]:
    """Answers HANDSHAKES n and WRITES n with a PART line each until TAIL; returns the stream's result."""
    no_handshakes = {"connect_ms": [], "handshake_ms": [], "att_requests": [], "cpu_s": 0, "loop_s": 0}
    # One sequence of waits over all the parts, as blerig's central draws them.
    phases = random.Random(arguments.phase_seed)
    while True:
        command = await commands.lines.get()
        words = command.split()
        if words == ["TAIL"]:
            return no_handshakes | {"write_ms": []} | await time_stream(arguments, device)
        if len(words) == 2 and words[0] == "HANDSHAKES" and words[1].isdigit():
            # Untimed, as in blerig's parts: a part's first handshake meets a peripheral that another central has
            # just left, whose advertising restarts at another phase.
            await warm_up(arguments, device)
            part = await time_handshakes(arguments, device, int(words[1]))
            emit("PART", part | {"write_ms": [], "stream": NO_STREAM, "mtu": 0})
            continue
        if len(words) == 2 and words[0] == "WRITES" and words[1].isdigit():
            part = await time_writes(arguments, device, int(words[1]), phases)
            emit("PART", no_handshakes | part | {"stream": NO_STREAM})
            continue
        raise Failure("control", f"not a command: {command!r} (HANDSHAKES n, WRITES n or TAIL)")


async def measure_stream(session: Session, command: CharacteristicProxy, duration_ms: int, size: int) -> dict[str, Any]:
    """Asks for a STREAM and counts its values until the end-of-stream one: value bytes over the time from the
    command's write response to the end-of-stream value, and the sequence numbers that never came."""
    session.values.clear()
    session.ended = asyncio.get_running_loop().create_future()
    try:
        await command.write_value(struct.pack("<BHH", STREAM, duration_ms, size), with_response=True)
    except Exception as error:
        raise Failure("write", f"STREAM command: {error!r}") from error
    started = time.perf_counter()
    try:
        await asyncio.wait_for(session.ended, duration_ms / 1000 + 10)
    except asyncio.TimeoutError:
        raise Failure("stream", f"no end-of-stream value within {duration_ms / 1000 + 10} s") from None
    ended = session.values[-1][0]
    expected = 0
    gaps = 0
    count = 0
    total = 0
    for _, value in session.values:
        sequence = struct.unpack_from("<I", value)[0]
        if sequence == END_OF_STREAM:
            break
        if sequence > expected:
            gaps += sequence - expected
        expected = sequence + 1
        count += 1
        total += len(value)
    return {"values": count, "bytes": total, "gaps": gaps, "seconds": ended - started, "size": size}


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in ("bumble", "rootcanal"):
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            found[package] = "not installed"
    return found


def static_address() -> str:
    raw = bytearray(secrets.token_bytes(6))
    raw[0] |= 0xC0
    return ":".join(f"{byte:02X}" for byte in raw)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(parser)
    parser.add_argument("--target", required=True, help="the peripheral's address (random static)")
    parser.add_argument("--handshakes", type=int, default=50, help="handshakes to time")
    parser.add_argument("--writes", type=int, default=50, help="write requests to time")
    parser.add_argument("--tick-ms", type=float, default=1.0, help="rootcanal's tick; each write waits a random part")
    parser.add_argument("--phase-seed", type=int, default=1, help="seed of the writes' random waits")
    parser.add_argument("--write-size", type=int, default=20, help="bytes per write to echo")
    parser.add_argument("--stream-ms", type=int, default=3000, help="milliseconds of STREAM")
    parser.add_argument("--mtu", type=int, default=247, help="ATT MTU to ask for")
    parser.add_argument(
        "--control", metavar="FIFO", help="take HANDSHAKES n and TAIL commands from this FIFO (blerig bench hci)"
    )
    arguments = parser.parse_args()
    setup_logging("bench_central")
    watch_lifeline(not arguments.no_lifeline)

    try:
        transport = await open_hci(arguments.hci)
    except Exception as error:
        emit("ERROR", {"stage": "hci", "error": f"cannot open {arguments.hci}: {error!r}"})
        return 1
    async with transport:
        address = static_address()
        device = Device.with_hci("Bumble-Bench", hci.Address(address), transport.source, transport.sink)
        try:
            await device.power_on()
        except Exception as error:
            emit("ERROR", {"stage": "hci", "error": f"powering on over {arguments.hci}: {error!r}"})
            return 1
        try:
            if arguments.control:
                try:
                    commands = Commands(arguments.control)
                except OSError as error:
                    raise Failure("control", f"cannot open the control FIFO {arguments.control}: {error!r}") from error
                emit("READY", {"address": address, "hci": arguments.hci, "versions": versions()})
                result = await serve(arguments, device, commands)
            else:
                emit("READY", {"address": address, "hci": arguments.hci, "versions": versions()})
                result = await run(arguments, device)
        except Failure as failure:
            emit("ERROR", {"stage": failure.stage, "error": str(failure)})
            return 1
        result["versions"] = versions()
        emit("RESULT", result)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main()))
    except KeyboardInterrupt:
        sys.exit(130)
