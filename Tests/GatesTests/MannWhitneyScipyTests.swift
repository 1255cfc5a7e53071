import Foundation
import Testing

@testable import Gates

/// blerig's Mann-Whitney U and quantiles against scipy's and numpy's answers, computed by
/// Fixtures/make_scipy_fixture.py (scipy.stats.mannwhitneyu, numpy.quantile) and committed with the script.
@Suite("Statistics against scipy")
struct MannWhitneyScipyTests {
    struct Fixture: Decodable {
        struct Case: Decodable, CustomTestStringConvertible {
            var name: String
            var x: [Double]
            var y: [Double]
            var alternative: String
            var method: String
            var statistic: Double
            var pvalue: Double
            var testDescription: String { "\(name) \(alternative) \(method)" }
        }
        struct QuantileCase: Decodable {
            var values: [Double]
            var p: Double
            var quantile: Double
        }
        var scipy: String
        var mannwhitneyu: [Case]
        var quantiles: [QuantileCase]
    }

    static let fixture: Fixture = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/scipy-mannwhitneyu.json")
        // A missing or broken fixture fails every test that reads it, with the decoder's reason.
        do { return try JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url)) } catch {
            fatalError("\(url.path): \(error)")
        }
    }()

    @Test("the fixture covers exact and asymptotic tests, with and without ties, all three alternatives")
    func fixtureCoversTheCases() {
        let cases = Self.fixture.mannwhitneyu
        #expect(cases.count >= 60)
        #expect(Set(cases.map(\.method)) == ["exact", "asymptotic"])
        #expect(Set(cases.map(\.alternative)) == ["greater", "less", "two-sided"])
        #expect(cases.contains { $0.pvalue < 1e-4 })
        #expect(cases.contains { Set($0.x + $0.y).count < ($0.x + $0.y).count })
    }

    @Test("U and the p-value equal scipy.stats.mannwhitneyu's", arguments: fixture.mannwhitneyu)
    func matchesScipy(_ c: Fixture.Case) throws {
        let alternative = try #require(MannWhitneyU.Alternative(rawValue: c.alternative))
        let method = try #require(MannWhitneyU.Method(rawValue: c.method))
        let test = MannWhitneyU(c.x, c.y, alternative: alternative, method: method)
        #expect(test.method == method)
        #expect(test.u == c.statistic, "U")
        let tolerance = max(1e-12, c.pvalue * 1e-9)
        #expect(abs(test.pValue - c.pvalue) <= tolerance, "p \(test.pValue) vs scipy \(c.pvalue) (scipy \(Self.fixture.scipy))")
    }

    @Test("auto picks exact without ties on small samples and asymptotic with ties")
    func autoMethod() {
        #expect(MannWhitneyU([1, 2, 3], [4, 5, 6]).method == .exact)
        #expect(MannWhitneyU([1, 2, 2], [4, 5, 6]).method == .asymptotic)
        let large = (0..<60).map(Double.init)
        #expect(MannWhitneyU(large, large.map { $0 + 0.5 }).method == .asymptotic)
        // exact asked for with ties falls back, as the count assumes distinct values
        #expect(MannWhitneyU([1, 1, 3], [4, 5, 6], method: .exact).method == .asymptotic)
    }

    @Test("quantiles equal numpy.quantile's (linear interpolation)")
    func quantilesMatchNumpy() {
        for c in Self.fixture.quantiles {
            let value = Quantile.of(c.values, c.p)
            #expect(abs(value - c.quantile) <= 1e-12 * max(1, abs(c.quantile)), "\(c.p) of \(c.values.count)")
        }
    }

    @Test("the exact distribution counts every arrangement once and is symmetric")
    func exactCounts() {
        // n1 = n2 = 3: the 20 arrangements give U = 0…9 with these counts (Mann and Whitney's table).
        #expect(MannWhitneyU.exactCounts(3, 3) == [1, 1, 2, 3, 3, 3, 3, 2, 1, 1])
        for (m, n) in [(1, 1), (4, 7), (9, 9), (12, 5)] {
            let counts = MannWhitneyU.exactCounts(m, n)
            #expect(counts.count == m * n + 1)
            #expect(counts.reduce(0, +) == Self.binomial(m + n, m).rounded())
            #expect(counts == counts.reversed())
        }
    }

    static func binomial(_ n: Int, _ k: Int) -> Double {
        (0..<k).reduce(1.0) { $0 * Double(n - $1) / Double($1 + 1) }
    }
}
