import Testing

@testable import Orchestrator

@Suite("console patterns that backtrack exponentially")
struct NestedRepetitionTests {
    @Test(
        "a repeated group that repeats inside is found, as written",
        arguments: [
            ("(a+)+$", "(a+)+"),
            (#"^(\w+\s?)*$"#, #"(\w+\s?)*"#),
            ("(.*)*x", "(.*)*"),
            ("x((ab)*c)+", "((ab)*c)+"),
            ("(a{2,})+", "(a{2,})+"),
            ("(a+){2,5}", "(a+){2,5}"),
            ("(?:[0-9]+,?)+;", "(?:[0-9]+,?)+"),
            ("(?<word>b+)*?", "(?<word>b+)*?"),
            (#"(\w+\s)*x"#, #"(\w+\s)*"#),
        ])
    func found(pattern: String, group: String) {
        #expect(NestedRepetition.first(in: pattern) == NestedRepetition(text: group))
    }

    @Test(
        "patterns that repeat once per place are left alone",
        arguments: [
            #"^\[\d+\] E/"#, "(ab)+", "(a|b)+", "[(+]+", #"\(a+\)+"#, "(a+)?", "(a+){3}", "(a+){0,1}",
            #"\Q(a+)+\E"#, "BOOT fw=(?<fw>[0-9.]+) reset=(?<reset>[A-Z]+)", "[[:alpha:]]+(x)+", "[]+)]+(a)*",
            "{fw}+", "(a)(b+)(c)*", #"(\d+)++"#, "(a++)+$", #"(\w+\s)*+x"#, "(a+){2}+",
        ])
    func notFound(pattern: String) {
        #expect(NestedRepetition.first(in: pattern) == nil)
    }
}
