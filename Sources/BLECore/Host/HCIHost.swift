/// blerig's HCI host, sans-I/O (the shape of Bumble's `Host` and BTstack's `hci.c`, with no I/O in it): H4
/// packets and time in, packets to send and events out. It initialises the controller, scans (legacy or
/// extended, as the controller allows), initiates and accepts connections, advertises, keeps each link's
/// parameters, data length and PHY, cuts L2CAP frames into ACL packets within the controller's buffers and
/// credits (Number Of Completed Packets), reassembles what arrives, and serves the fixed LE channels: ATT goes up,
/// LE signaling and SMP are answered here.
///
/// A shell owns it: feed every packet from the transport to ``receive(_:at:)``, call ``tick(at:)`` at
/// ``nextDeadline``, and carry out the returned ``Action``s in order. Nothing here blocks, sleeps or traps on
/// what a controller or peer sends.
public struct HCIHost: Sendable {
    public let configuration: Configuration
    public internal(set) var phase: Phase = .idle
    public internal(set) var controller: ControllerInfo?
    public internal(set) var links: [UInt16: Link] = [:]

    public enum Phase: Sendable, Hashable {
        case idle
        case initialising
        case ready
        case failed(HostError)
    }

    /// What a queued command is for: it routes the command's outcome.
    enum Purpose: Sendable, Hashable {
        case initialisation
        case scan
        case connect(DeviceAddress)
        case cancelConnect
        case advertising
        case update(UInt16)
        case other
    }

    struct QueuedCommand: Sendable {
        var command: HCI.Command
        var purpose: Purpose
    }

    struct LinkState: Sendable {
        var reassembler = L2CAP.Reassembler()
        /// ACL packets waiting for controller buffers, whole frames in order.
        var queue: [[HCI.ACLDataPacket]] = []
        var queueHead = 0
        /// Packets sent whose buffers the controller has not yet returned.
        var inFlight = 0
        /// An ATT PDU that the peer answers went out on the link, and no ATT PDU has come back since.
        var awaitsATT = false
        var nextSignalIdentifier: UInt8 = 1

        var queuedFrames: Int { queue.count - queueHead }

        /// Takes the first packet of the first frame queued (there must be one), counting it in flight.
        mutating func takeNextPacket() -> HCI.ACLDataPacket {
            let packet = queue[queueHead].removeFirst()
            if queue[queueHead].isEmpty {
                queueHead += 1
                if queueHead == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    queueHead = 0
                } else if queueHead >= 64 {
                    queue.removeFirst(queueHead)
                    queueHead = 0
                }
            }
            inFlight += 1
            return packet
        }
    }

    var commands: [QueuedCommand] = []
    var outstanding: (command: QueuedCommand, sentAt: RigInstant)?
    var commandCredits = 1
    var initialisationSteps: [HCI.Command] = []
    var partial = PartialController()
    var linkStates: [UInt16: LinkState] = [:]
    var aclCredits = 0
    /// Round-robin position over links with queued packets.
    var lastServed: UInt16 = 0
    var scanningWanted = false
    var scanningOn = false
    var connectQueue: [(peer: DeviceAddress, parameters: HCI.ConnectionParameters)] = []
    var initiating: DeviceAddress?
    var cancelling = false
    /// Extended advertising data arriving in several reports, by advertiser.
    var fragmentedReports: [DeviceAddress: HCI.AdvertisingReport] = [:]
    var now = RigInstant.origin

    struct PartialController: Sendable {
        var publicAddress = DeviceAddress(0)
        var hciVersion: UInt8 = 0
        var hciRevision: UInt16 = 0
        var manufacturer: UInt16 = 0
        var lmpSubversion: UInt16 = 0
        var leFeatures: UInt64 = 0
        var aclBuffers = 0
        var aclBufferSize = 0
    }

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    // MARK: - Lifecycle

    /// Starts initialisation with HCI Reset; ``Event/ready(_:)`` follows when the controller is set up.
    public mutating func start(at now: RigInstant) -> [Action] {
        self.now = now
        phase = .initialising
        initialisationSteps = [
            .reset, .readLocalVersionInformation, .readLocalSupportedFeatures, .readBDAddr,
            .setEventMask(Self.eventMask), .leSetEventMask(Self.leEventMask), .leReadBufferSize,
            .leReadLocalSupportedFeatures,
        ]
        var actions: [Action] = []
        nextInitialisationStep(&actions)
        return actions
    }

    /// Disconnection Complete (4), Encryption Change (7), Read Remote Version Information Complete (11), Hardware
    /// Error (15), Data Buffer Overflow (25), Encryption Key Refresh Complete (47) and LE Meta (61).
    public static let eventMask: UInt64 = 1 << 4 | 1 << 7 | 1 << 11 | 1 << 15 | 1 << 25 | 1 << 47 | 1 << 61
    /// Connection Complete, Advertising Report, Connection Update Complete, Read Remote Features Complete, Long Term
    /// Key Request, Remote Connection Parameter Request, Data Length Change (bits 0–6), Enhanced Connection Complete
    /// (9), PHY Update Complete (11), Extended Advertising Report (12).
    public static let leEventMask: UInt64 = 0x7F | 1 << 9 | 1 << 11 | 1 << 12

    /// Whether the controller's next packet, if it is a short one, can wait for the packet after it, because the
    /// host needs nothing before that one: no command waits for the controller's credits, no frame for its buffers,
    /// and what is awaited is an ATT response on a link or the event of a command answered with Command Status.
    /// The short packet is then a Number of Completed Packets event for the request (8 bytes with its H4 indicator),
    /// or that Command Status (7 bytes), with the response or the event behind it. A transport that reads more at
    /// once may wait for more than that while this holds (docs/radios.md, "Waking once per answer"). A request that
    /// is never answered keeps it true until the link's next ATT PDU or its end, and a refused command's status has
    /// no event behind it; such a transport bounds each wait, so either costs a short delay, not a stall.
    public var completionsCanWait: Bool {
        guard commands.isEmpty else { return false }
        var awaited = false
        if let outstanding {
            guard outstanding.command.command.completesWithItsOwnEvent else { return false }
            awaited = true
        }
        for state in linkStates.values {
            if state.queuedFrames > 0 { return false }
            if state.awaitsATT { awaited = true }
        }
        return awaited
    }

    /// While ``completionsCanWait``: the fewest bytes of H4 stream the controller still has to send before the host
    /// has anything to do, when every link that awaits an ATT response has part of it in. The rest of the response,
    /// with one indicator and ACL header: a controller sends the rest in one packet or more, and never fewer bytes.
    /// A transport may then wait for all of the response's fragments and wake once (docs/radios.md, "Waking once
    /// per answer"). 0 when a packet of any length may be what the host needs.
    public var bytesBeforeAnswer: Int {
        guard outstanding == nil else { return 0 }
        var fewest: Int?
        for state in linkStates.values where state.awaitsATT {
            guard let remaining = state.reassembler.remaining else { return 0 }
            fewest = min(fewest ?? .max, 1 + 4 + remaining)
        }
        return fewest ?? 0
    }

    /// When ``tick(at:)`` must next be called: the outstanding command's timeout.
    public var nextDeadline: RigInstant? {
        outstanding.map { $0.sentAt.advanced(by: configuration.commandTimeout) }
    }

    /// Checks the command timeout.
    public mutating func tick(at now: RigInstant) -> [Action] {
        self.now = now
        guard let outstanding, now >= outstanding.sentAt.advanced(by: configuration.commandTimeout) else { return [] }
        var actions: [Action] = []
        fail(.commandTimeout(outstanding.command.command.opcode, after: configuration.commandTimeout), &actions)
        return actions
    }

    var isReady: Bool { phase == .ready }

    // MARK: - Requests

    /// Turns scanning on (idempotent). Reports arrive as ``Event/advertisement(_:)``.
    public mutating func startScanning(at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard isReady, !scanningWanted else { return actions }
        scanningWanted = true
        let extended = controller?.usesExtendedScanning ?? false
        var parameters = configuration.scan
        parameters.ownAddressKind = ownAddressKind
        enqueue(extended ? .leSetExtendedScanParameters(parameters) : .leSetScanParameters(parameters), .scan, &actions)
        enqueue(
            extended
                ? .leSetExtendedScanEnable(true, filterDuplicates: false)
                : .leSetScanEnable(true, filterDuplicates: false), .scan, &actions)
        return actions
    }

    public mutating func stopScanning(at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard isReady, scanningWanted else { return actions }
        scanningWanted = false
        let extended = controller?.usesExtendedScanning ?? false
        enqueue(
            extended
                ? .leSetExtendedScanEnable(false, filterDuplicates: false)
                : .leSetScanEnable(false, filterDuplicates: false), .scan, &actions)
        return actions
    }

    /// Asks for a link to `peer`. Attempts run one at a time (a controller initiates one connection at once);
    /// the outcome is ``Event/connected(_:)`` or ``Event/connectionFailed(_:_:)``.
    public mutating func connect(
        to peer: DeviceAddress, parameters: HCI.ConnectionParameters, at now: RigInstant
    ) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard isReady else {
            actions.append(.event(.connectionFailed(peer, .commandDisallowed)))
            return actions
        }
        connectQueue.append((peer, parameters))
        startNextConnection(&actions)
        return actions
    }

    /// Gives up on connecting to `peer`: a queued attempt is dropped, a running one is cancelled. Either way
    /// ``Event/connectionFailed(_:_:)`` follows (0x02) unless the link came up first.
    public mutating func cancelConnect(to peer: DeviceAddress, at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        if let index = connectQueue.firstIndex(where: { $0.peer == peer }) {
            connectQueue.remove(at: index)
            actions.append(.event(.connectionFailed(peer, .unknownConnectionIdentifier)))
        } else if initiating == peer, !cancelling {
            cancelling = true
            enqueue(.leCreateConnectionCancel, .cancelConnect, &actions)
        }
        return actions
    }

    /// Closes a link; ``Event/disconnected(handle:reason:)`` follows with reason 0x16 (local host).
    public mutating func disconnect(
        _ handle: UInt16, reason: HCIErrorCode = .remoteUserTerminated, at now: RigInstant
    ) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard links[handle] != nil else { return actions }
        enqueue(.disconnect(handle: handle, reason: reason), .other, &actions)
        return actions
    }

    /// True while the link has room for another frame (fewer than `maximumQueuedFrames` waiting).
    public func canQueue(on handle: UInt16) -> Bool {
        (linkStates[handle]?.queuedFrames ?? 0) < configuration.maximumQueuedFrames
    }

    /// Queues an ATT PDU on the link's fixed ATT channel. Frames beyond the limit are queued all the same (the
    /// shell keeps to ``canQueue(on:)``); a PDU for a link that is gone is dropped.
    public mutating func sendATT(_ pdu: [UInt8], on handle: UInt16, at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        if let opcode = pdu.first, ATT.Opcode(rawValue: opcode).isAnswered { linkStates[handle]?.awaitsATT = true }
        queueFrame(.att(pdu), on: handle, &actions)
        return actions
    }

    /// Asks for new connection parameters: as central with LE Connection Update, as peripheral with an L2CAP
    /// Connection Parameter Update Request. ``Event/parametersChanged(_:)`` or
    /// ``Event/parameterUpdateFailed(handle:_:)`` follows.
    public mutating func updateParameters(
        _ parameters: HCI.ConnectionParameters, on handle: UInt16, at now: RigInstant
    ) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard let link = links[handle] else { return actions }
        if link.role == .central {
            enqueue(.leConnectionUpdate(handle: handle, parameters), .update(handle), &actions)
        } else {
            let identifier = nextSignalIdentifier(handle)
            let signal = L2CAP.LESignal.connectionParameterUpdateRequest(identifier: identifier, parameters)
            queueFrame(L2CAP.BasicFrame(channel: .leSignaling, payload: signal.encoded), on: handle, &actions)
        }
        return actions
    }

    /// Asks the controller for a data length on the link (27–251 octets).
    public mutating func setDataLength(octets: UInt16, time: UInt16, on handle: UInt16, at now: RigInstant) -> [Action]
    {
        self.now = now
        var actions: [Action] = []
        guard links[handle] != nil else { return actions }
        enqueue(.leSetDataLength(handle: handle, txOctets: octets, txTime: time), .other, &actions)
        return actions
    }

    /// Asks the controller for PHYs on the link; ``Event/phyChanged(handle:tx:rx:)`` follows.
    public mutating func setPHY(tx: HCI.PHYs, rx: HCI.PHYs, on handle: UInt16, at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard links[handle] != nil else { return actions }
        enqueue(.leSetPHY(handle: handle, tx: tx, rx: rx), .other, &actions)
        return actions
    }

    /// Starts legacy connectable advertising (the controller stops it when a central connects).
    public mutating func startAdvertising(
        interval: Duration, data: [UInt8], scanResponse: [UInt8], connectable: Bool = true, at now: RigInstant
    ) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard isReady else { return actions }
        let parameters = HCI.AdvertisingParameters(
            interval: interval, kind: connectable ? .connectableUndirected : .scannableUndirected,
            ownAddressKind: ownAddressKind)
        enqueue(.leSetAdvertisingEnable(false), .advertising, &actions)
        enqueue(.leSetAdvertisingParameters(parameters), .advertising, &actions)
        enqueue(.leSetAdvertisingData(Array(data.prefix(31))), .advertising, &actions)
        enqueue(.leSetScanResponseData(Array(scanResponse.prefix(31))), .advertising, &actions)
        enqueue(.leSetAdvertisingEnable(true), .advertising, &actions)
        return actions
    }

    public mutating func stopAdvertising(at now: RigInstant) -> [Action] {
        self.now = now
        var actions: [Action] = []
        guard isReady else { return actions }
        enqueue(.leSetAdvertisingEnable(false), .advertising, &actions)
        return actions
    }

    var ownAddressKind: DeviceAddress.Kind { configuration.randomAddress == nil ? .public : .random }

    // MARK: - Commands

    mutating func enqueue(_ command: HCI.Command, _ purpose: Purpose, _ actions: inout [Action]) {
        commands.append(QueuedCommand(command: command, purpose: purpose))
        sendCommands(&actions)
    }

    mutating func sendCommands(_ actions: inout [Action]) {
        while outstanding == nil, commandCredits > 0, !commands.isEmpty {
            let next = commands.removeFirst()
            outstanding = (next, now)
            commandCredits -= 1
            actions.append(.send(next.command.h4, about: about(next.command)))
        }
    }

    /// The device a command concerns: the peer it connects to, the peer of the link it names.
    func about(_ command: HCI.Command) -> DeviceAddress? {
        switch command {
        case let .leCreateConnection(request), let .leExtendedCreateConnection(request): return request.peer
        case let .disconnect(handle, _), let .leConnectionUpdate(handle, _), let .leSetDataLength(handle, _, _),
            let .leSetPHY(handle, _, _), let .leRemoteConnectionParameterRequestReply(handle, _),
            let .leRemoteConnectionParameterRequestNegativeReply(handle, _):
            return links[handle]?.peer
        default: return nil
        }
    }

    mutating func nextInitialisationStep(_ actions: inout [Action]) {
        guard !initialisationSteps.isEmpty else {
            finishInitialisation(&actions)
            return
        }
        enqueue(initialisationSteps.removeFirst(), .initialisation, &actions)
    }

    mutating func finishInitialisation(_ actions: inout [Action]) {
        let extended: Bool
        switch configuration.scanning {
        case .automatic: extended = partial.leFeatures & (1 << 12) != 0
        case .legacy: extended = false
        case .extended: extended = true
        }
        let info = ControllerInfo(
            publicAddress: partial.publicAddress, address: configuration.randomAddress ?? partial.publicAddress,
            hciVersion: partial.hciVersion, hciRevision: partial.hciRevision, manufacturer: partial.manufacturer,
            lmpSubversion: partial.lmpSubversion, leFeatures: partial.leFeatures, aclBuffers: partial.aclBuffers,
            aclBufferSize: partial.aclBufferSize, usesExtendedScanning: extended)
        controller = info
        aclCredits = info.aclBuffers
        phase = .ready
        actions.append(.event(.ready(info)))
    }

    mutating func fail(_ error: HostError, _ actions: inout [Action]) {
        if case .failed = phase { return }
        phase = .failed(error)
        commands = []
        outstanding = nil
        for handle in links.keys.sorted() {
            actions.append(.event(.disconnected(handle: handle, reason: .unspecifiedError)))
        }
        links = [:]
        linkStates = [:]
        if let initiating { actions.append(.event(.connectionFailed(initiating, .unspecifiedError))) }
        for attempt in connectQueue { actions.append(.event(.connectionFailed(attempt.peer, .unspecifiedError))) }
        initiating = nil
        connectQueue = []
        actions.append(.event(.failed(error)))
    }

    mutating func startNextConnection(_ actions: inout [Action]) {
        guard initiating == nil, !connectQueue.isEmpty else { return }
        let next = connectQueue.removeFirst()
        initiating = next.peer
        cancelling = false
        let request = HCI.CreateConnection(
            peer: next.peer, parameters: next.parameters, ownAddressKind: ownAddressKind,
            scanInterval: configuration.scan.interval, scanWindow: configuration.scan.window)
        let extended = controller?.usesExtendedScanning ?? false
        enqueue(
            extended ? .leExtendedCreateConnection(request) : .leCreateConnection(request), .connect(next.peer),
            &actions)
    }

    mutating func nextSignalIdentifier(_ handle: UInt16) -> UInt8 {
        guard var state = linkStates[handle] else { return 1 }
        let identifier = state.nextSignalIdentifier
        state.nextSignalIdentifier = identifier == 255 ? 1 : identifier + 1
        linkStates[handle] = state
        return identifier
    }
}
