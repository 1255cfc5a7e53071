import BenchCore

extension HCITransportSpec {
    /// Opens the transport the spec names: connects, configures the port, or binds the user channel.
    public func open() throws(HCITransportError) -> any HCITransport {
        switch self {
        case let .tcp(host, port): try TCPTransport(host: host, port: port)
        case let .uart(path, baud, flowControl): try UARTTransport(path: path, baud: baud, flowControl: flowControl)
        case let .hciUser(adapter): try HCIUserChannelTransport(adapter: adapter)
        }
    }
}
