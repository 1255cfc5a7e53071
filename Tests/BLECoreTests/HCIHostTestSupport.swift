import BLECore

/// A controller for the host's unit tests: it decodes every command the host sends, answers the way the spec
/// says, and lets a test play the air (advertising reports, connections, data from a peer, NOCP credits).
struct FakeController {
    var leFeatures: UInt64 = 1 << 5 | 1 << 8 | 1 << 12
    var lmpFeatures: [UInt8] = [0, 0, 0, 0, 0x60, 0, 0, 0]
    var publicAddress = DeviceAddress(0x00_1B_DC_07_32_EF)
    var aclBufferSize: UInt16 = 27
    var aclBuffers: UInt8 = 4
    /// Opcodes answered with this status instead of success.
    var failing: [HCI.Opcode: HCIErrorCode] = [:]
    /// Opcodes not answered at all.
    var silent: Set<HCI.Opcode> = []
    /// Every command received, decoded.
    var commands: [HCI.Command] = []
    /// Every ACL packet received.
    var acl: [HCI.ACLDataPacket] = []

    var host: HCIHost
    var now = RigInstant.origin
    var events: [HCIHost.Event] = []
    /// Every packet the host sent, with the device it said the packet concerns.
    var sent: [(packet: HCI.H4Packet, about: DeviceAddress?)] = []
    /// The devices the host said received packets concerned, in order.
    var receivedAbout: [DeviceAddress] = []

    init(configuration: HCIHost.Configuration = .init(), setUp: (inout FakeController) -> Void = { _ in }) {
        host = HCIHost(configuration: configuration)
        setUp(&self)
    }

    /// Starts the host and answers until it is ready (or failed).
    mutating func initialise() {
        carryOut(host.start(at: now))
    }

    mutating func carryOut(_ actions: [HCIHost.Action]) {
        var replies: [HCI.H4Packet] = []
        for action in actions {
            switch action {
            case let .send(packet, about):
                sent.append((packet, about))
                switch packet.type {
                case .command:
                    let command = try! HCI.Command(decoding: HCI.CommandPacket(decoding: packet.body))
                    commands.append(command)
                    replies += answer(command)
                case .aclData:
                    acl.append(try! HCI.ACLDataPacket(decoding: packet.body))
                default:
                    fatalError("the host sent \(packet)")
                }
            case let .received(about):
                receivedAbout.append(about)
            case let .event(event):
                events.append(event)
            }
        }
        for reply in replies { deliver(reply) }
    }

    mutating func deliver(_ packet: HCI.H4Packet) {
        carryOut(host.receive(packet, at: now))
    }

    mutating func deliver(_ event: HCI.Event) { deliver(event.h4) }

    mutating func answer(_ command: HCI.Command) -> [HCI.H4Packet] {
        let opcode = command.opcode
        if silent.contains(opcode) { return [] }
        let status = failing[opcode] ?? .success
        var parameters: [UInt8] = [status.rawValue]
        var w = ByteWriter()
        switch command {
        case .readLocalVersionInformation:
            w.write(UInt8(0x0C))
            w.write(UInt16(0x0001))
            w.write(UInt8(0x0C))
            w.write(UInt16(0x05F1))
            w.write(UInt16(0x0002))
        case .readLocalSupportedFeatures: w.write(contentsOf: lmpFeatures)
        case .readBDAddr: w.write(contentsOf: publicAddress.littleEndianBytes)
        case .leReadBufferSize:
            w.write(aclBufferSize)
            w.write(aclBuffers)
        case .readBufferSize:
            w.write(UInt16(0))
            w.write(UInt8(0))
            w.write(UInt16(0))
            w.write(UInt16(0))
        case .leReadLocalSupportedFeatures: w.write(leFeatures)
        case .leCreateConnection, .leExtendedCreateConnection, .leConnectionUpdate, .disconnect, .leSetPHY:
            return [HCI.Event.commandStatus(status, numberOfCommands: 1, opcode: opcode).h4]
        case .leSetDataLength(let handle, _, _):
            w.write(handle)
        default: break
        }
        parameters += status == .success ? w.bytes : []
        return [HCI.Event.commandComplete(numberOfCommands: 1, opcode: opcode, returnParameters: parameters).h4]
    }

    /// The link a connect made: the controller reports it up.
    mutating func completeConnection(
        handle: UInt16, peer: DeviceAddress, role: HCI.Role = .central, status: HCIErrorCode = .success,
        enhanced: Bool = false
    ) {
        var event = HCI.LEConnectionComplete(
            status: status, handle: handle, role: role, peerAddress: peer, connectionInterval: 12,
            supervisionTimeout: 400)
        event.enhanced = enhanced
        deliver(.leConnectionComplete(event))
    }

    /// An L2CAP frame from the peer, cut into fragments of `size` bytes.
    mutating func peerSends(_ frame: L2CAP.BasicFrame, on handle: UInt16, fragmentSize: Int = 27) {
        for packet in HCI.ACLDataPacket.packets(
            carrying: frame, handle: handle, direction: .controllerToHost, maximumDataLength: fragmentSize)
        {
            deliver(HCI.H4Packet(packet))
        }
    }

    mutating func returnBuffers(_ count: UInt16, on handle: UInt16) {
        deliver(.numberOfCompletedPackets([(handle, count)]))
    }

    /// Events since the last call.
    mutating func takeEvents() -> [HCIHost.Event] {
        defer { events = [] }
        return events
    }

    mutating func takeCommands() -> [HCI.Command] {
        defer { commands = [] }
        return commands
    }

    var info: HCIHost.ControllerInfo? { host.controller }
}
