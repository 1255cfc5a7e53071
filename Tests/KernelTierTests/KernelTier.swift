import Testing

/// The kernel tier: the real blerig binary inside Debian's kernel, booted by qemu (TCG, two CPUs) with the
/// host's root shared read-only, against the kernel's own drivers: hci_vhci with Bumble's controller on the host,
/// a USB/IP CDC-ACM board, dummy_hcd's root hub. See docs/kernel-tier.md.
///
/// Every suite is nested here and runs one test at a time: a guest keeps both cores busy. Without qemu the tier
/// is skipped with the reason, except under CI (`CI=true`), where it runs and fails on what is missing.
@Suite(.serialized, .enabled(if: KernelTierEnvironment.runs, KernelTierEnvironment.skipReason))
enum KernelTier {}
