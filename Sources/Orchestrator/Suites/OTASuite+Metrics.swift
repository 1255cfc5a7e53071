import CentralStack
import Foundation
import Reports

extension OTARun {
    /// The `ota.*` metrics (architecture.md, "What is measured"), each with its definition.
    enum Metric {
        /// Also kept as one raw sample of the check (an update per check).
        static func duration(_ report: OTAReport) -> MeasuredValue {
            CheckRecorder.record("ota.duration_s", unit: .seconds, values: [report.duration.seconds])
            return MeasuredValue(
                metric: "ota.duration_s", statistic: .value, value: report.duration.seconds, unit: .seconds,
                definition: "update asked for → outcome known: connect, START (the board erases the bank), frames, "
                    + "FINISH (verify), ACTIVATE, reboot, reconnect, Firmware Revision read")
        }

        /// Also kept as one raw sample of the check.
        static func throughput(_ report: OTAReport) -> MeasuredValue? {
            guard let bytesPerSecond = report.throughput else { return nil }
            CheckRecorder.record("ota.throughput_kBps", unit: .kilobytesPerSecond, values: [bytesPerSecond / 1000])
            return MeasuredValue(
                metric: "ota.throughput_kBps", statistic: .value, value: bytesPerSecond / 1000,
                unit: .kilobytesPerSecond,
                definition: "image bytes ÷ (START answered ok → ACK of the last frame), 1 kB = 1000 B; window "
                    + "\(report.window), batch \(report.batch)")
        }

        /// Throughput ÷ the link's unacknowledged capacity.
        static func efficiency(_ report: OTAReport, capacity: Double) -> MeasuredValue? {
            guard let bytesPerSecond = report.throughput, capacity > 0 else { return nil }
            return MeasuredValue(
                metric: "ota.efficiency", statistic: .value, value: bytesPerSecond / capacity, unit: .ratio,
                definition: "ota.throughput_kBps ÷ the modelled link's unacknowledged capacity, packets_per_event × "
                    + "(data_length − 7) B per connection interval = \(String(format: "%.1f", capacity / 1000)) kB/s; frame "
                    + "headers (8 of 244 B) keep it below 0.967, and links sharing a radio share its airtime")
        }

        static func resumes(_ report: OTAReport) -> MeasuredValue {
            MeasuredValue(
                metric: "ota.resumes", statistic: .value, value: Double(report.statistics.resumes), unit: .count,
                definition: "sessions that took the update up again from the board's persisted next_seq after the "
                    + "link was lost")
        }

        static func naks(_ report: OTAReport) -> MeasuredValue {
            MeasuredValue(
                metric: "ota.naks", statistic: .value, value: Double(report.statistics.naks), unit: .count,
                definition: "NAK notifications the board sent (bad CRC, gap, flash write error)")
        }

        static func resent(_ report: OTAReport) -> MeasuredValue {
            MeasuredValue(
                metric: "ota.frames_resent", statistic: .value, value: Double(report.statistics.framesResent),
                unit: .count, definition: "frames sent more than once (rewinds after NAKs, timeouts, resumes)")
        }
    }
}
