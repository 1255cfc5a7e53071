import Foundation

/// Small SVG charts drawn as text: no script, no external resource, every label escaped. Each plotted series is a
/// `<path class="series">` or a set of `<rect class="bar">`, which is what the Chromium test measures.
struct SVGChart {
    static let width = 640.0
    static let height = 260.0
    static let margin = (left: 64.0, right: 16.0, top: 46.0, bottom: 40.0)
    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        /// Drawn as a step line (an empirical CDF) rather than straight segments.
        var steps = false
        /// Draw a marker at every point (few points, e.g. percentiles only or a trend).
        var markers = false
        var dashed = false
    }

    /// A horizontal reference line with its label (a baseline, a link's capacity).
    struct Rule {
        var y: Double
        var label: String
    }

    /// A line chart with axes, ticks, a legend and reference lines.
    static func lines(
        title: String, xLabel: String, yLabel: String, series: [Series], rules: [Rule] = [],
        yRange: ClosedRange<Double>? = nil
    ) -> String {
        let xs = series.flatMap { $0.points.map(\.x) }
        let ys = series.flatMap { $0.points.map(\.y) } + rules.map(\.y)
        guard let xMin = xs.min(), let xMax = xs.max(), let yMin0 = ys.min(), let yMax0 = ys.max() else {
            return empty(title)
        }
        let yAxis = yRange.map { Axis(low: $0.lowerBound, high: $0.upperBound) } ?? Axis(low: min(0, yMin0), high: yMax0)
        let xAxis = Axis(low: xMin, high: xMax)
        var svg = open(title)
        svg += axes(x: xAxis, y: yAxis, xLabel: xLabel, yLabel: yLabel)
        for rule in rules {
            let y = yAxis.position(rule.y, from: height - margin.bottom, to: margin.top)
            svg += "<line class=\"rule\" x1=\"\(c(margin.left))\" x2=\"\(c(width - margin.right))\" y1=\"\(c(y))\" "
                + "y2=\"\(c(y))\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>"
            svg += "<text x=\"\(c(width - margin.right - 4))\" y=\"\(c(y - 4))\" text-anchor=\"end\" "
                + "font-size=\"11\" fill=\"#333\">\(HTMLText.escaped(rule.label))</text>"
        }
        for (index, line) in series.enumerated() where !line.points.isEmpty {
            let color = palette[index % palette.count]
            let points = line.points.map {
                (xAxis.position($0.x, from: margin.left, to: width - margin.right),
                 yAxis.position($0.y, from: height - margin.bottom, to: margin.top))
            }
            var d = "M\(c(points[0].0)) \(c(points[0].1))"
            for (previous, point) in zip(points, points.dropFirst()) {
                if line.steps { d += " H\(c(point.0)) V\(c(point.1))" } else { d += " L\(c(point.0)) \(c(point.1))" }
                _ = previous
            }
            if points.count == 1 { d += " h1" }
            let dash = line.dashed ? " stroke-dasharray=\"4 3\"" : ""
            svg += "<path class=\"series\" data-series=\"\(HTMLText.escaped(line.name))\" d=\"\(d)\" fill=\"none\" "
                + "stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>"
            if line.markers || points.count == 1 {
                for point in points {
                    svg += "<circle cx=\"\(c(point.0))\" cy=\"\(c(point.1))\" r=\"3.5\" fill=\"\(color)\"/>"
                }
            }
        }
        svg += legend(series.map(\.name))
        return svg + "</svg>"
    }

    /// Horizontal bars, one per `(label, value)`, with the value written at the bar's end.
    static func bars(title: String, unit: String, bars: [(label: String, value: Double)]) -> String {
        guard !bars.isEmpty else { return empty(title) }
        let rowHeight = 22.0
        let top = 28.0
        let chartHeight = top + Double(bars.count) * rowHeight + 16
        let labelWidth = 200.0
        let axis = Axis(low: 0, high: max(bars.map(\.value).max() ?? 0, 1e-12))
        var svg = open(title, height: chartHeight)
        for (index, bar) in bars.enumerated() {
            let y = top + Double(index) * rowHeight
            let length = axis.position(bar.value, from: 0, to: width - labelWidth - 90)
            svg += "<text x=\"\(c(labelWidth - 6))\" y=\"\(c(y + 15))\" text-anchor=\"end\" font-size=\"12\">"
                + "\(HTMLText.escaped(bar.label))</text>"
            svg += "<rect class=\"bar\" x=\"\(c(labelWidth))\" y=\"\(c(y + 3))\" width=\"\(c(max(length, 1)))\" "
                + "height=\"\(c(rowHeight - 6))\" fill=\"\(palette[index % palette.count])\"/>"
            svg += "<text x=\"\(c(labelWidth + max(length, 1) + 6))\" y=\"\(c(y + 15))\" font-size=\"12\">"
                + "\(NumberText.significant(bar.value)) \(HTMLText.escaped(unit))</text>"
        }
        return svg + "</svg>"
    }

    private static func open(_ title: String, height: Double = height) -> String {
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(c(width))\" height=\"\(c(height))\" "
            + "viewBox=\"0 0 \(c(width)) \(c(height))\" role=\"img\"><title>\(HTMLText.escaped(title))</title>"
            + "<text x=\"\(c(margin.left))\" y=\"18\" font-size=\"13\" font-weight=\"bold\">"
            + "\(HTMLText.escaped(title))</text>"
    }

    private static func empty(_ title: String) -> String {
        open(title, height: 50) + "<text x=\"\(c(margin.left))\" y=\"40\" font-size=\"12\" fill=\"#666\">"
            + "nothing to draw</text></svg>"
    }

    private static func axes(x: Axis, y: Axis, xLabel: String, yLabel: String) -> String {
        let left = margin.left
        let right = width - margin.right
        let bottom = height - margin.bottom
        let top = margin.top
        var svg = "<g class=\"axes\" font-size=\"11\" fill=\"#333\">"
        svg += "<line x1=\"\(c(left))\" y1=\"\(c(bottom))\" x2=\"\(c(right))\" y2=\"\(c(bottom))\" stroke=\"#999\"/>"
        svg += "<line x1=\"\(c(left))\" y1=\"\(c(top))\" x2=\"\(c(left))\" y2=\"\(c(bottom))\" stroke=\"#999\"/>"
        for tick in x.ticks {
            let px = x.position(tick, from: left, to: right)
            svg += "<line x1=\"\(c(px))\" y1=\"\(c(bottom))\" x2=\"\(c(px))\" y2=\"\(c(bottom + 4))\" stroke=\"#999\"/>"
            svg += "<text x=\"\(c(px))\" y=\"\(c(bottom + 16))\" text-anchor=\"middle\">"
                + "\(NumberText.significant(tick, digits: 3))</text>"
        }
        for tick in y.ticks {
            let py = y.position(tick, from: bottom, to: top)
            svg += "<line x1=\"\(c(left))\" y1=\"\(c(py))\" x2=\"\(c(right))\" y2=\"\(c(py))\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(c(left - 6))\" y=\"\(c(py + 4))\" text-anchor=\"end\">"
                + "\(NumberText.significant(tick, digits: 3))</text>"
        }
        svg += "<text x=\"\(c((left + right) / 2))\" y=\"\(c(height - 6))\" text-anchor=\"middle\">"
            + "\(HTMLText.escaped(xLabel))</text>"
        svg += "<text transform=\"translate(14 \(c((top + bottom) / 2))) rotate(-90)\" text-anchor=\"middle\">"
            + "\(HTMLText.escaped(yLabel))</text>"
        return svg + "</g>"
    }

    /// One row under the title, as many names as fit (each cut to 28 characters), then `+N more`.
    private static func legend(_ names: [String]) -> String {
        guard names.count > 1 else { return "" }
        var svg = "<g class=\"legend\" font-size=\"11\">"
        var x = margin.left
        for (index, name) in names.enumerated() {
            let label = name.count > 28 ? String(name.prefix(27)) + "…" : name
            let entry = 22 + Double(label.count) * 6.2
            if x + entry > legendEnd(names.count, index) {
                svg += "<text x=\"\(c(x))\" y=\"35\">+\(names.count - index) more</text>"
                break
            }
            svg += "<rect x=\"\(c(x))\" y=\"26\" width=\"10\" height=\"10\" fill=\"\(palette[index % palette.count])\"/>"
            svg += "<text x=\"\(c(x + 14))\" y=\"35\">\(HTMLText.escaped(label))</text>"
            x += entry
        }
        return svg + "</g>"
    }

    /// The rightmost x a legend entry may reach: leave room for `+N more` unless it is the last entry.
    private static func legendEnd(_ count: Int, _ index: Int) -> Double {
        width - margin.right - (index == count - 1 ? 0 : 60)
    }

    private static func c(_ value: Double) -> String { HTMLText.coordinate(value) }

    /// A linear axis over [low, high] with 1-2-5 ticks.
    struct Axis {
        var low: Double
        var high: Double
        var ticks: [Double]

        init(low: Double, high: Double) {
            var (low, high) = (low, high)
            if !(high > low) {
                let pad = low == 0 ? 1 : abs(low) * 0.1
                (low, high) = (low - pad, high + pad)
            }
            let raw = (high - low) / 5
            let magnitude = Self.pow10(Int((log10(raw)).rounded(.down)))
            let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? raw
            let first = (low / step).rounded(.down) * step
            let last = (high / step).rounded(.up) * step
            self.low = first
            self.high = last
            var ticks: [Double] = []
            var tick = first
            while tick <= last + step / 2, ticks.count < 20 {
                ticks.append(abs(tick) < step * 1e-9 ? 0 : tick)
                tick += step
            }
            self.ticks = ticks
        }

        func position(_ value: Double, from start: Double, to end: Double) -> Double {
            guard high > low else { return start }
            return start + (value - low) / (high - low) * (end - start)
        }

        private static func pow10(_ exponent: Int) -> Double {
            var value = 1.0
            if exponent >= 0 { for _ in 0..<exponent { value *= 10 } } else { for _ in 0..<(-exponent) { value /= 10 } }
            return value
        }
    }
}
