import BLECore
import CentralStack
import DeviceProfiles
import Reports

/// The `commands` check of a board described as data: every write of the profile in order, `repetitions` times,
/// each timed into `gatt.write_rtt_ms` and held to what it must cause (a Write Response or the named ATT error,
/// and the notification it must bring, all within its time). Like the built-in boards' commands, they are work given
/// to the app's central (``AppCentral``), sent on the session its machine made ready.
extension CommandsSuite {
    func runDescribed(_ commands: DataProfile.Commands, repetitions: Int, on board: BoardUnderTest) async {
        do {
            try await board.withAppCentral(purpose: "commands") { app in
                try await app.perform("sending the profile's commands", attempts: .failWithTheAttempt) { session in
                    await board.check(Self.name, commands.check) {
                        var rtt = LatencyHistogram(metric: "gatt.write_rtt_ms", definition: Self.rttDefinition)
                        for _ in 0..<repetitions {
                            for command in commands.writes {
                                if let took = try await Self.send(command, board: board, session: session) {
                                    rtt.record(took)
                                }
                            }
                        }
                        return rtt.measurements
                    }
                }
            }
        } catch {
            guard !Task.isCancelled else { return }
            let message = "\(board.place): \(error)"
            await board.check(Self.name, commands.check) { throw CheckFailure(message) }
        }
    }

    /// Sends one command and checks what it caused; returns the round trip of a Write Request.
    static func send(
        _ command: DataProfile.Command, board: BoardUnderTest, session: ProfileSession
    ) async throws
        -> Duration?
    {
        let clock = board.clock
        let what = "'\(command.name)' (\(command.bytes.hexString) to \(command.characteristic))"
        var inbox: Inbox?
        if let expected = command.expect.notification {
            inbox = try await session.ensureSubscribedOrReady(expected.characteristic)
            _ = inbox?.drain()
        }
        let start = clock.now
        var took: Duration?
        if command.withoutResponse {
            try await session.writeWithoutResponse(command.bytes, to: command.characteristic)
        } else {
            do {
                try await session.write(command.bytes, to: command.characteristic)
                guard command.expect.error == nil else {
                    throw CheckFailure(
                        "\(board.place): \(what) was accepted, expected ATT error "
                            + "\(ATT.ErrorCode(rawValue: command.expect.error!))")
                }
            } catch SessionError.gatt(.att(let code, _, _), _) where code.rawValue == command.expect.error {
                // The refusal the profile asks for.
            }
            took = start.duration(to: clock.now)
            if let took, took > command.within {
                throw CheckFailure(
                    "\(board.place): \(what) answered after \(took.msText), allowed \(command.within.msText)")
            }
        }
        if let expected = command.expect.notification, let inbox {
            let remaining = command.within - start.duration(to: clock.now)
            let event = try await inbox.next(
                within: max(.zero, remaining), clock: clock,
                waitingFor: "the notification on \(expected.characteristic) after \(what)")
            if let bytes = expected.bytes, event.value != bytes {
                throw CheckFailure(
                    "\(board.place): \(what) brought \(event.value.hexString) on \(expected.characteristic), "
                        + "expected \(bytes.hexString)")
            }
        }
        return took
    }
}

extension ProfileSession {
    /// The inbox of a ready subscription, or of an on-demand one, subscribing first.
    func ensureSubscribedOrReady(_ uuid: BluetoothUUID) async throws(SessionError) -> Inbox {
        if let inbox = try? inbox(uuid) { return inbox }
        return try await ensureSubscribed(uuid)
    }
}
