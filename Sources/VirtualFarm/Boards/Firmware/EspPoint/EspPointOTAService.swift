import BLECore
import DeviceProfiles

/// The OTA protocol on the board (docs/board-contract.md, esp-point "OTA"): START (erase, or resume from the persisted
/// next_seq), data frames checked and programmed into the inactive bank with flash timing, an ACK every `batch`
/// frames, NAK and discard until the expected frame, FINISH's verification, ACTIVATE into "pending verify". This file
/// holds OTA Control and START; `+Data` the frames, `+Finish` FINISH and ACTIVATE, `+Flash` the flash writes and
/// what a power loss tears, `+Boot` the bootloader side (which bank boots, the self-test, commit or rollback) and
/// the test firmware's OTA console commands.
///
/// Its state is the update's: what flash keeps (``OTAFlashState``: the banks, `otadata`, the persisted record, the
/// faults armed) and the session of one connection with the flash pipeline (``OTARunState``), RAM cleared at boot.
final class EspPointOTAService {
    typealias OTA = EspPoint.OTA

    /// The battery level below which START is refused (status 3).
    static let minimumBattery: UInt8 = 20
    static let flashTiming = FlashTiming()

    weak var board: VirtualBoard?
    let auth: EspPointAuthService
    let battery: EspPointBatteryService

    // MARK: What the bootloader started

    /// The running bank's firmware; the bootloader (`+Boot`) sets it at every boot.
    var version: FirmwareVersion
    /// The bootloader found an intact image to start (false: the board is bricked, see `+Boot`).
    var bootable = true

    // MARK: Flash and RAM

    /// The app banks, `otadata` and the OTA record: survive resets and power loss.
    var flash: OTAFlashState
    /// The OTA session and the flash pipeline: cleared at every boot.
    var run = OTARunState()

    init(factory: FirmwareVersion, auth: EspPointAuthService, battery: EspPointBatteryService) {
        version = factory
        flash = OTAFlashState(factory: factory)
        self.auth = auth
        self.battery = battery
    }

    /// Boot: no OTA session, nothing queued in the app's pipeline (the flash chip's own writes go on).
    func rebooted() { run = OTARunState() }

    /// A central's link went down: its session ends (the persisted record stays for a resume).
    func closed(_ connection: GATTServer.ConnectionID) {
        if run.connection == connection { run.connection = nil }
    }

    // MARK: OTA Control

    func control(_ value: [UInt8], on connection: GATTServer.ConnectionID) -> ATT.ErrorCode? {
        guard auth.isAuthenticated(connection) else {
            board?.log(.warning, "OTA", "request refused: not authenticated")
            return .insufficientAuthentication
        }
        let request: OTA.Request
        do { request = try OTA.Request(decoding: value) } catch {
            board?.log(.warning, "OTA", "\(error)")
            return .invalidAttributeValueLength
        }
        switch request {
        case let .start(start): otaStart(start, on: connection)
        case .finish: finish()
        case .activate: return activate()
        case .status: notifyOTA(.status(status))
        }
        return nil
    }

    func notifyOTA(_ notification: OTA.Notification) {
        board?.notify(EspPoint.otaControl, in: EspPoint.otaService, notification.encoded)
    }

    var status: OTA.Status {
        if let record = flash.record {
            return OTA.Status(
                state: record.verified ? .verified : .receiving, nextSeq: record.nextSeq, crc32: record.start.crc32,
                size: record.start.size)
        }
        return OTA.Status(state: flash.outcome, nextSeq: 0, crc32: flash.last.crc, size: flash.last.size)
    }

    /// START: refuse (too large, busy, battery), resume the persisted update when size and CRC match, or erase the
    /// image's region and start at 0. The answer comes once the flash is ready, after the erase.
    private func otaStart(_ start: OTA.Start, on connection: GATTServer.ConnectionID) {
        guard let board else { return }
        let now = board.sim.now
        let maxPayload = OTA.maxPayload(mtu: board.mtu(of: connection))
        func refuse(_ status: OTA.StartStatus, _ why: String) {
            board.log(.warning, "OTA", "start refused: \(why)")
            notifyOTA(.startResult(status: status, nextSeq: 0, maxPayload: UInt16(clamping: maxPayload)))
        }
        battery.update()
        if Int(start.size) > FlashBanks.bankCapacity {
            return refuse(.tooLarge, "image of \(start.size) bytes exceeds the bank's \(FlashBanks.bankCapacity)")
        }
        if run.activating || run.flashBusyUntil > now {
            return refuse(.busy, "the flash is busy (erase, verify or activation in progress)")
        }
        if battery.cell.percent < Self.minimumBattery {
            return refuse(.batteryLow, "battery at \(battery.cell.percent) % (START needs \(Self.minimumBattery) %)")
        }
        guard maxPayload > 0 else {
            return refuse(.busy, "ATT_MTU \(board.mtu(of: connection)) leaves no room for a frame")
        }
        run.epoch += 1
        run.connection = connection
        run.discarding = false
        run.sinceAck = 0
        let timing = Self.flashTiming
        if var record = flash.record, record.start.size == start.size, record.start.crc32 == start.crc32,
            record.maxPayload <= maxPayload
        {
            // Resume: frames up to the persisted next_seq are in flash; what the flash holds after it (frames
            // programmed after the last ACK, or torn by a power loss) is erased again from its sector on.
            record.start.batch = start.batch
            record.start.window = start.window
            flash.record = record
            let offset = Int(record.nextSeq) * record.maxPayload
            let ready = record.verified ? now : eraseTarget(from: offset, to: Int(record.start.size))
            (run.expectedSeq, run.flashedSeq) = (record.nextSeq, record.nextSeq)
            run.crc = CRC32(resumingFrom: record.crc)
            run.flashBusyUntil = ready
            board.log(
                .info, "OTA",
                "resume size=\(start.size) next_seq=\(record.nextSeq) of \(record.frames)"
                    + " max_payload=\(record.maxPayload)")
            answerStart(at: ready, nextSeq: record.nextSeq, maxPayload: record.maxPayload)
            board.refreshAdvertising()
            return
        }
        // A new image: any earlier update is dropped; the region is erased before the first frame.
        flash.record = nil
        let erase = timing.eraseDuration(offset: 0, length: Int(start.size))
        let ready = now + erase
        run.flashBusyUntil = ready
        let epoch = run.epoch
        // The image header goes first (it is in the first sector): the bank stops being bootable at once. The rest
        // of the region is erased by `ready`; a power loss before then leaves it part erased.
        let region = FlashOperation.Region.bank(flash.banks.target)
        let size = Int(start.size)
        flashWrite(
            [UInt8](repeating: 0xFF, count: FlashBanks.Descriptor.length), to: .descriptor(flash.banks.target), at: 0,
            taking: timing.sectorErase, erasing: true)
        flash.inFlight.add(
            FlashOperation(
                region: region, offset: 0, old: flash.banks.read(region, 0..<size),
                new: [UInt8](repeating: 0xFF, count: size), begin: now, end: ready, eraseShare: 1, epoch: epoch),
            now: now)
        board.log(
            .info, "OTA",
            "start size=\(start.size) fw=\(start.version) batch=\(start.effectiveBatch) window=\(start.window) "
                + "erasing bank=\(flash.banks.target.name) (\(Int(erase.milliseconds)) ms)")
        board.at(ready) { [weak self] in
            guard let self, run.epoch == epoch else { return }
            flash.banks.store([UInt8](repeating: 0xFF, count: size), in: region, at: 0)
            flash.record = OTAFlashState.Record(start: start, maxPayload: maxPayload, nextSeq: 0, crc: CRC32().value)
            (run.expectedSeq, run.flashedSeq, run.crc) = (0, 0, CRC32())
            notifyOTA(.startResult(status: .ok, nextSeq: 0, maxPayload: UInt16(maxPayload)))
            self.board?.refreshAdvertising()
        }
    }

    private func answerStart(at ready: RigInstant, nextSeq: UInt32, maxPayload: Int) {
        guard let board else { return }
        let epoch = run.epoch
        board.at(ready) { [weak self] in
            guard let self, run.epoch == epoch else { return }
            notifyOTA(.startResult(status: .ok, nextSeq: nextSeq, maxPayload: UInt16(maxPayload)))
        }
    }
}
