import BLECore
import DeviceProfiles

extension ConnectionShell {
    /// One connection attempt and the link it gives: connect, bring the session to ready, authenticate a paired
    /// esp-point, report `connected`; then pair when the machine asks, run the traffic, and report the end.
    ///
    /// Events are reported as the radio gives them, like Core Bluetooth's callbacks: a session that fails after
    /// the link came up is reported as failed-to-connect *and* then as disconnected, and the machine counts the
    /// attempt once (the case study's race, here for real).
    func runLink(_ link: Link, commands: AsyncStream<LinkCommand>, pairing: Bool) async {
        let peripheral = link.peripheral
        let requested = clock.now
        let attempt = await connect(link)
        let connection: any GATTConnection
        switch attempt {
        case .failure(let error):
            report(
                .attempt(
                    LinkAttempt(
                        peripheral: peripheral, requested: requested, failure: "\(error)", reason: error.hciReason),
                    at: clock.now))
            input.yield((.failedToConnect(peripheral, reason: error.hciReason), clock.now))
            return forget(link)
        case .success(let made): connection = made
        }
        let linkUp = clock.now
        if !link.token.isCancelled {
            var ready = false
            do {
                try await Handshake.withSession(
                    connection: connection, requested: requested, linkUp: linkUp, spec: configuration.spec,
                    clock: clock,
                    cache: configuration.cache
                ) { session in
                    if !pairing, configuration.spec.profile == .espPoint {
                        guard let key = keys.key(for: peripheral) else {
                            throw SessionError.authenticationFailed("no key is stored for \(peripheral)")
                        }
                        try await EspPointClient(session: session).authenticate(key: key)
                    }
                    report(
                        .attempt(
                            LinkAttempt(
                                peripheral: peripheral, requested: requested, linkUp: linkUp,
                                timeline: session.timeline, mtu: session.mtu),
                            at: clock.now))
                    input.yield((.connected(peripheral), linkUp))
                    ready = true
                    await serve(session, link: link, commands: commands, pairing: pairing)
                }
            } catch {
                if !ready {
                    let reason = Self.reason(error)
                    report(
                        .attempt(
                            LinkAttempt(
                                peripheral: peripheral, requested: requested, linkUp: linkUp, failure: "\(error)",
                                reason: reason),
                            at: clock.now))
                    input.yield((.failedToConnect(peripheral, reason: reason), clock.now))
                } else {
                    report(.problem("session with \(peripheral) ended: \(error)", at: clock.now))
                }
            }
        }
        await connection.disconnect()
        let reason = await connection.disconnection()
        input.yield((.disconnected(peripheral, reason: reason), clock.now))
        forget(link)
    }

    /// Connects unless the token is cancelled first; a link that came up anyway is returned (the caller closes it).
    private func connect(_ link: Link) async -> Result<any GATTConnection, CentralError> {
        let (central, timeout) = (central, configuration.connectTimeout)
        return await withTaskGroup(of: Result<any GATTConnection, CentralError>?.self) { group in
            group.addTask {
                do throws(CentralError) {
                    return .success(try await central.connect(to: link.peripheral, timeout: timeout))
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                await link.token.wait()
                return nil
            }
            var outcome: Result<any GATTConnection, CentralError>?
            while let next = await group.next() {
                if let next { outcome = next }
                group.cancelAll()
            }
            return outcome ?? .failure(.cancelled)
        }
    }

    /// While the link lasts: pairing when asked, then the traffic. Returns when the link is down or the token is
    /// cancelled.
    private func serve(
        _ session: ProfileSession, link: Link, commands: AsyncStream<LinkCommand>, pairing: Bool
    ) async {
        let peripheral = link.peripheral
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = await session.connection.disconnection() }
            group.addTask { await link.token.wait() }
            group.addTask {
                if pairing {
                    var asked = false
                    for await command in commands where command == .pair {
                        asked = true
                        break
                    }
                    guard asked, await self.pair(session, peripheral) else { return await CancelToken().wait() }
                }
                do { try await self.traffic(session) } catch {
                    if !Task.isCancelled, !Self.isLinkLoss(error) {
                        self.report(.problem("traffic with \(peripheral) failed: \(error)", at: self.clock.now))
                    }
                }
                await CancelToken().wait()
            }
            _ = await group.next()
            group.cancelAll()
        }
    }

    /// Pairs (esp-point: PAIR_BEGIN/PAIR_CONFIRM unless a key is stored, then authentication) and reports it.
    private func pair(_ session: ProfileSession, _ peripheral: DeviceAddress) async -> Bool {
        guard configuration.spec.profile == .espPoint else {
            input.yield((.pairingSucceeded(peripheral), clock.now))
            return true
        }
        do {
            try await EspPointClient(session: session).ensureAuthenticated(keys: keys, newKey: newKey)
            input.yield((.pairingSucceeded(peripheral), clock.now))
            return true
        } catch {
            // A link lost while pairing is reported by its disconnect; anything else is a refusal.
            if !Self.isLinkLoss(error) {
                input.yield((.pairingFailed(peripheral, why: "\(error)"), clock.now))
            }
            return false
        }
    }

    private func forget(_ link: Link) {
        shared.withLock { s in
            if s.links[link.peripheral]?.token === link.token { s.links[link.peripheral] = nil }
        }
        link.commands.finish()
    }

    static func isLinkLoss(_ error: any Error) -> Bool {
        switch error {
        case SessionError.gatt(.disconnected, _), SessionError.linkClosed, GATTError.disconnected: true
        default: false
        }
    }

    /// The HCI reason a failed session is reported with.
    static func reason(_ error: any Error) -> HCIErrorCode {
        switch error {
        case SessionError.gatt(.disconnected(let reason), _), GATTError.disconnected(let reason): reason
        case SessionError.authenticationFailed: .authenticationFailure
        default: .unspecifiedError
        }
    }
}

extension CentralError {
    /// The HCI reason a failed connect is reported with.
    public var hciReason: HCIErrorCode {
        switch self {
        case .connectionFailed(_, let reason): reason
        case .notFound: .connectionFailedToBeEstablished
        case .connectionLimit: .connectionLimitExceeded
        case .radioUnavailable, .cancelled: .localHostTerminated
        }
    }
}
