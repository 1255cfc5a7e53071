import BLECore

/// The physical quantities a board senses, as smooth seeded random walks around a base value, so readings
/// look like a room rather than noise and are the same for the same seed.
struct Environment {
    private var random: SeededRandom
    /// Degrees Celsius.
    private(set) var temperature: Double
    /// Percent relative humidity.
    private(set) var humidity: Double
    let baseTemperature: Double
    let baseHumidity: Double

    init(seed: UInt64, stream: String, temperature: Double = 22.5, humidity: Double = 45) {
        random = SeededRandom(seed: seed, stream: stream)
        self.temperature = temperature
        self.humidity = humidity
        baseTemperature = temperature
        baseHumidity = humidity
    }

    /// Moves the walk on by `elapsed`, pulled back towards the base values.
    mutating func advance(by elapsed: Duration) {
        let minutes = max(0, elapsed.seconds / 60)
        let steps = min(60, max(1, Int(minutes.rounded(.up))))
        for _ in 0..<steps {
            let scale = (minutes / Double(steps)).squareRoot()
            temperature += (random.nextUnit() - 0.5) * 0.2 * scale + (baseTemperature - temperature) * 0.02
            humidity += (random.nextUnit() - 0.5) * 0.6 * scale + (baseHumidity - humidity) * 0.02
        }
        humidity = min(100, max(0, humidity))
    }
}

/// A battery drained by time awake and by radio use, reported as a percentage and a voltage.
struct Battery {
    /// Percent of full charge, 0 … 100.
    private(set) var level: Double
    /// Percent per hour while powered.
    let drainPerHour: Double

    init(level: Double, drainPerHour: Double = 0.05) {
        self.level = min(100, max(0, level))
        self.drainPerHour = drainPerHour
    }

    mutating func drain(over elapsed: Duration) {
        level = max(0, level - drainPerHour * elapsed.seconds / 3600)
    }

    var percent: UInt8 { UInt8(level.rounded()) }

    /// A Li-ion cell: 3.3 V empty … 4.2 V full.
    var millivolts: UInt16 { UInt16(3300 + (900 * level / 100).rounded()) }
}
