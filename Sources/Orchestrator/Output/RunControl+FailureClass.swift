import Reports

extension RunControl.Reason {
    /// Whose fault the stop is, as `runFinished` records it for the reports: ``FailureClass/infrastructure`` for
    /// a bench that failed; nil for a signal, the timeout or the horizon, which are nobody's.
    public var failureClass: FailureClass? {
        if case .infrastructure = self { return .infrastructure }
        return nil
    }
}
