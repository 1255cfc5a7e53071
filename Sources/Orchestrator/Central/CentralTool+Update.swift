import BLECore
import CentralStack
import DeviceProfiles
import Foundation

extension CentralTool {
    /// `blerig central --update IMAGE --version V`: the app's update of the board, run by ``AppCentral`` (which
    /// connects on demand and passes through `firmwareUpdating`). A process killed mid-transfer leaves the board's
    /// persisted next_seq and the saved state; the next process restores the state, reconnects without scanning,
    /// and the transfer resumes where the board stands.
    public struct Update: Sendable {
        public var imagePath: String
        public var version: FirmwareVersion
        public var window: Int
        public var batch: UInt8

        public init(imagePath: String, version: FirmwareVersion, window: Int = 8, batch: UInt8 = 10) {
            self.imagePath = imagePath
            self.version = version
            self.window = window
            self.batch = batch
        }
    }

    /// Runs the update on `central` through an app central restored from `restoration`. Prints
    /// `progress ACKED/FRAMES resumes N` as frames are acknowledged and `update: ...` at the end.
    func runUpdate(
        _ update: Update, central: any Central, keys: FileKeyStore, store: FileConnectionStateStore,
        restoration: ConnectionRestoration, control: RunControl, output: @escaping @Sendable (String) -> Void,
        errors: @escaping @Sendable (String) -> Void
    ) async -> ExitStatus {
        let image: OTAImageFile
        do { image = try OTAImageFile(path: update.imagePath, version: update.version) } catch {
            errors("blerig: --update \(update.imagePath): \(error)")
            return .usage
        }
        let app = AppCentral(
            central: central, board: address, radio: central as? any RadioPower,
            configuration: .init(
                spec: .standard(profile), policy: .onDemand, scanFilter: ScanFilter(addresses: [address]),
                backoff: ReconnectBackoff(random: SeededRandom(seed: UInt64.random(in: 0...UInt64.max)))),
            keys: keys, newKey: { (0..<32).map { _ in UInt8.random(in: 0...255) } }, store: store,
            report: { output(Self.line($0)) })
        let options = OTASender.Options(window: update.window, batch: update.batch)
        let (result, stopped) = await runStoppable(until: { _ = await control.interrupted() }) {
            () async -> Result<OTAReport, OTAError> in
            do {
                return try await app.running(restoring: restoration.snapshot) { app in
                    do throws(OTAError) {
                        return .success(
                            try await app.update(
                                to: image, options: options,
                                progress: { output("progress \($0.acknowledged)/\($0.frames) resumes \($0.resumes)") }))
                    } catch {
                        return .failure(error)
                    }
                }
            } catch {
                return .failure(.session("the app central ended: \(error)"))
            }
        }
        app.stop()
        if stopped { return .interrupted }
        switch result {
        case .success(let report):
            let statistics = report.statistics
            output(
                "update: \(report.outcome.map { "\($0)" } ?? "no outcome"); running \(report.runningAfter ?? "?"); "
                    + "frames sent \(statistics.framesSent), resumes \(statistics.resumes)")
            guard case .committed(update.version)? = report.outcome, report.runningAfter == update.version.description
            else { return .checksFailed }
            return .passed
        case .failure(let error):
            output("update: failed: \(error)")
            return .checksFailed
        }
    }
}
