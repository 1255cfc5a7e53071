/// A run event is one flat JSON object: an `event` field naming the case, next to the payload's own fields,
/// e.g. `{"board":"esp-01","event":"log","level":"info",...}`. Flat objects keep the JSON Lines file easy to
/// grep and to read with `jq`.
extension RunEvent: Codable {
    private enum CodingKeys: String, CodingKey { case event }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .event)
        guard let kind = Kind(rawValue: name) else {
            let known = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw Swift.DecodingError.dataCorruptedError(
                forKey: .event, in: container, debugDescription: "unknown event \"\(name)\"; expected one of \(known)")
        }
        self =
            switch kind {
            case .runStarted: .runStarted(try RunStarted(from: decoder))
            case .boardStarted: .boardStarted(try BoardStarted(from: decoder))
            case .testStarted: .testStarted(try TestStarted(from: decoder))
            case .testFinished: .testFinished(try TestFinished(from: decoder))
            case .log: .log(try LogLine(from: decoder))
            case .transition: .transition(try StateTransition(from: decoder))
            case .attachment: .attachment(try Attachment(from: decoder))
            case .boardFinished: .boardFinished(try BoardFinished(from: decoder))
            case .runFinished: .runFinished(try RunFinished(from: decoder))
            }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .event)
        switch self {
        case .runStarted(let payload): try payload.encode(to: encoder)
        case .boardStarted(let payload): try payload.encode(to: encoder)
        case .testStarted(let payload): try payload.encode(to: encoder)
        case .testFinished(let payload): try payload.encode(to: encoder)
        case .log(let payload): try payload.encode(to: encoder)
        case .transition(let payload): try payload.encode(to: encoder)
        case .attachment(let payload): try payload.encode(to: encoder)
        case .boardFinished(let payload): try payload.encode(to: encoder)
        case .runFinished(let payload): try payload.encode(to: encoder)
        }
    }
}
