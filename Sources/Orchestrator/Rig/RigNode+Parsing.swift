/// Building a ``RigNode`` tree from YAML text: libyaml's events (``YAMLEventReader``) fed to ``RigNodeComposer``.
extension RigNode {
    /// Parses `text` as one YAML document located in `file`, in one pass.
    ///
    /// Syntax errors, an empty document, a second document and a document over the loader's limits throw, each as
    /// one issue. Duplicate keys are recorded in `diagnostics`, all of them, each at its second occurrence, and the
    /// tree keeps the first, so the caller can go on and report every other problem in the file as well.
    public static func parse(
        yaml text: String, file: String, diagnostics: RigDiagnostics
    ) throws(RigFileError)
        -> RigNode
    {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        let reader = YAMLEventReader(bytes: bytes)
        var composer = RigNodeComposer(file: file, diagnostics: diagnostics, end: YAMLText.endMark(of: bytes))
        while true {
            let event: YAMLEvent
            do {
                event = try reader.next()
            } catch {
                throw RigFileError(syntaxIssue(error, depth: composer.depth, file: file, bytes: bytes))
            }
            do {
                if let root = try composer.consume(event) { return root }
            } catch {
                throw RigFileError(error)
            }
        }
    }
}
