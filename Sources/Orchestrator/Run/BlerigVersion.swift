/// blerig's version: the one place it is written. `blerig --version` prints it; run reports may carry it.
///
/// The package version, bumped by hand when a release is cut. (The git revision of a checkout is not compiled
/// in: SwiftPM has no cheap way to pass it without a build plugin.)
public enum BlerigVersion {
    public static let current = "0.9.0"
}
