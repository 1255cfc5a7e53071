import BoardControl
import Foundation

extension Doctor {
    /// The process's capabilities and the binary's, and the udev rules installed against the shipped ones.
    static func permissions(_ host: DoctorHost) -> DoctorReport.Section {
        var findings: [DoctorReport.Finding] = []
        let status = (try? String(contentsOfFile: "\(host.proc)/self/status", encoding: .utf8)) ?? ""
        let effective = status.split(separator: "\n").first { $0.hasPrefix("CapEff:") }
            .flatMap { Capabilities(statusLine: $0) }
        let setcap = "`sudo setcap cap_net_admin,cap_net_raw+ep \(host.executable)`"
        if host.userID == 0 {
            findings.append(DoctorReport.Finding(.info, "running as root: ports, hubs and adapters need no udev rules"))
        }
        if let effective {
            let admin = effective.contains(Capabilities.netAdmin)
            let raw = effective.contains(Capabilities.netRaw)
            if admin && raw {
                findings.append(DoctorReport.Finding(.ok, "this process has CAP_NET_ADMIN and CAP_NET_RAW (hci-user:N)"))
            } else {
                let missing = [admin ? nil : "CAP_NET_ADMIN", raw ? nil : "CAP_NET_RAW"].compactMap(\.self)
                findings.append(
                    DoctorReport.Finding(
                        .warning, "this process lacks \(missing.joined(separator: " and ")): radios on the HCI user "
                            + "channel (hci-user:N) will be refused", fix: "\(setcap), or run as root"))
            }
        } else {
            findings.append(DoctorReport.Finding(.info, "\(host.proc)/self/status has no CapEff line to read"))
        }
        if let file = host.fileCapabilities(host.executable) {
            let both = file.permitted.contains(Capabilities.netAdmin) && file.permitted.contains(Capabilities.netRaw)
            findings.append(
                both && file.effective
                    ? DoctorReport.Finding(.ok, "\(host.executable) carries cap_net_admin,cap_net_raw=ep (getcap)")
                    : DoctorReport.Finding(
                        .warning, "\(host.executable) has file capabilities without cap_net_admin,cap_net_raw=ep",
                        fix: setcap))
        } else if host.userID != 0 {
            findings.append(
                DoctorReport.Finding(
                    .warning, "\(host.executable) has no file capabilities (getcap shows none)", fix: setcap))
        }
        findings.append(udevRules(host))
        return DoctorReport.Section("Permissions", findings)
    }

    private static func udevRules(_ host: DoctorHost) -> DoctorReport.Finding {
        let name = (UdevRules.file as NSString).lastPathComponent
        let installed = "\(host.udevRulesDirectory)/\(name)"
        let shipped = try? Data(contentsOf: URL(filePath: host.shippedUdevRules))
        guard let current = try? Data(contentsOf: URL(filePath: installed)) else {
            return DoctorReport.Finding(
                host.userID == 0 ? .info : .warning,
                "\(installed) is not installed: serial ports, hub ports and usbfs need root without it",
                fix: "\(UdevRules.install) (from the blerig checkout), then add the user to plugdev")
        }
        guard let shipped else {
            return DoctorReport.Finding(
                .info, "\(installed) is installed; \(host.shippedUdevRules) is not here to compare it with (run "
                    + "blerig doctor from the checkout)")
        }
        guard current == shipped else {
            return DoctorReport.Finding(
                .warning, "\(installed) differs from the shipped \(host.shippedUdevRules)",
                fix: "install the shipped one again: \(UdevRules.install)")
        }
        return DoctorReport.Finding(.ok, "\(installed) is installed and matches \(host.shippedUdevRules)")
    }
}
