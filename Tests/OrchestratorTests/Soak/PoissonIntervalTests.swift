import Testing

@testable import Orchestrator

/// The exact Poisson interval against values nobody here computed: scipy 1.17.1,
/// `chi2.ppf(0.025, 2k) / 2` and `chi2.ppf(0.975, 2k + 2) / 2` (the Garwood bounds for k events in unit time),
/// and `scipy.special.gammainc` for the CDF.
@Suite("Exact Poisson confidence interval")
struct PoissonIntervalTests {
    static let garwood: [(k: Int, lower: Double, upper: Double)] = [
        (0, 0.0, 3.6888794541139354),
        (1, 0.025317807984289876, 5.571643390938898),
        (2, 0.24220927854396496, 7.22468766772396),
        (3, 0.6186721228956014, 8.767273069742323),
        (5, 1.6234863901184207, 11.66833207932267),
        (10, 4.7953886961324335, 18.39035604201778),
        (20, 12.216519585403944, 30.8883779026746),
        (50, 37.110963737461866, 65.91876666433681),
        (100, 81.36399125092314, 121.62679379242638),
        (1000, 938.9730184076952, 1063.952136016302),
    ]

    @Test("the 95 % bounds match scipy's to 1e-9 relative", arguments: garwood.indices)
    func publishedBounds(index: Int) {
        let row = Self.garwood[index]
        let interval = PoissonInterval(count: row.k, exposure: 1)
        #expect(abs(interval.lower - row.lower) <= 1e-9 * max(row.lower, 1e-300), "k=\(row.k) lower \(interval.lower)")
        #expect(abs(interval.upper - row.upper) <= 1e-9 * row.upper, "k=\(row.k) upper \(interval.upper)")
    }

    @Test("the rate and bounds scale with the exposure")
    func exposure() {
        let interval = PoissonInterval(count: 10, exposure: 250)
        #expect(interval.rate == 10.0 / 250)
        #expect(abs(interval.lower - 4.7953886961324335 / 250) < 1e-12)
        #expect(abs(interval.upper - 18.39035604201778 / 250) < 1e-12)
        #expect(interval.contains(0.04) && !interval.contains(0.1) && !interval.contains(0.01))
    }

    @Test("the gamma CDF matches scipy.special.gammainc on both sides of x = a + 1")
    func gammaCDF() {
        #expect(abs(GammaDistribution.cdf(0.1, shape: 0.5) - 0.34527915398142317) < 1e-14)
        #expect(abs(GammaDistribution.cdf(2.5, shape: 3) - 0.45618688411667035) < 1e-14)
        #expect(abs(GammaDistribution.cdf(90, shape: 100) - 0.15822098918643007) < 1e-12)
        #expect(GammaDistribution.cdf(0, shape: 2) == 0)
    }

    @Test("the quantile inverts the CDF", arguments: [0.5, 1, 2.5, 10, 400])
    func quantileInverts(shape: Double) {
        for p in [1e-6, 0.025, 0.5, 0.975, 1 - 1e-6] {
            let x = GammaDistribution.quantile(p, shape: shape)
            #expect(abs(GammaDistribution.cdf(x, shape: shape) - p) < 1e-12, "shape \(shape), p \(p)")
        }
    }
}
