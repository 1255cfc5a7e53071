/// Finds a repeated group that repeats inside itself, such as `(a+)+` or `(\w+\s?)*`: Swift's regular expressions
/// backtrack, and such a pattern takes time exponential in the line's length to find that a line does not match
/// (`(a+)+$` against 18 `a`s and a `b` takes 15 s). A console pattern runs on every line a board prints, so a
/// profile that has one is refused at load time (docs/profiles.md, `console`).
///
/// This reads the pattern's structure only: escapes, `\Q…\E`, character classes, groups and quantifiers. A
/// possessive quantifier (`*+`, `++`) gives nothing back, so it neither counts as a repetition inside nor makes one
/// outside. The check is cautious: `(\w+\s)*` is found although each of its words must end at a space, and
/// `(\w+\s)*+` says the same without the doubt. A repeated group whose alternatives overlap (`(a|ab)+`) is also slow
/// and is not found.
struct NestedRepetition: Equatable {
    /// The group, as written in the pattern, with its quantifier.
    var text: String

    /// The first such group in `pattern`, or nil.
    static func first(in pattern: String) -> NestedRepetition? {
        let characters = Array(pattern)
        /// One open group: where it starts, and whether anything in it repeats.
        struct Frame {
            var start: Int
            var repeats = false
        }
        var frames = [Frame(start: 0)]
        var index = 0
        // Where the last atom (a character, a class, a group) started, for the quantifier after it.
        var atomRepeats = false
        var atomStart = 0
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\":
                atomStart = index
                atomRepeats = false
                if index + 1 < characters.count, characters[index + 1] == "Q" {
                    // \Q…\E: literal text up to \E (or the end).
                    index += 2
                    while index < characters.count, !(characters[index] == "\\" && index + 1 < characters.count
                        && characters[index + 1] == "E")
                    {
                        index += 1
                    }
                    index += 2
                } else {
                    index += 2
                }
                continue
            case "[":
                atomStart = index
                atomRepeats = false
                index = endOfClass(characters, from: index)
                continue
            case "(":
                frames.append(Frame(start: index))
                atomRepeats = false
                index += 1
                continue
            case ")":
                guard frames.count > 1 else { break }  // unbalanced: the compiler has refused it already
                let group = frames.removeLast()
                atomStart = group.start
                atomRepeats = group.repeats
                // The enclosing group has a repetition inside it now, whether or not this one is quantified.
                if group.repeats { frames[frames.count - 1].repeats = true }
                index += 1
                continue
            default:
                break
            }
            if let (length, unbounded, possessive) = quantifier(characters, at: index) {
                // A possessive quantifier never gives back what it took, so nothing is tried twice.
                if unbounded, !possessive {
                    if atomRepeats {
                        return NestedRepetition(text: String(characters[atomStart..<(index + length)]))
                    }
                    frames[frames.count - 1].repeats = true
                }
                atomRepeats = false
                index += length
                continue
            }
            atomStart = index
            atomRepeats = false
            index += 1
        }
        return nil
    }

    /// The index after the class that starts at `start` (`[…]`, with escapes, POSIX classes such as `[:alpha:]`,
    /// nested classes and a `]` first in the class taken literally).
    private static func endOfClass(_ characters: [Character], from start: Int) -> Int {
        var index = start + 1
        if index < characters.count, characters[index] == "^" { index += 1 }
        if index < characters.count, characters[index] == "]" { index += 1 }
        while index < characters.count {
            switch characters[index] {
            case "\\": index += 2
            case "[": index = endOfClass(characters, from: index)
            case "]": return index + 1
            default: index += 1
            }
        }
        return index
    }

    /// The quantifier at `index`, if one is there: its length (with a lazy `?` or possessive `+` after it), whether
    /// it lets its atom repeat more than once (`*`, `+`, `{n,}`, `{n,m}` with m > 1 and m > n; `?` does not), and
    /// whether it is possessive.
    private static func quantifier(
        _ characters: [Character], at index: Int
    ) -> (length: Int, unbounded: Bool, possessive: Bool)? {
        var length: Int
        let repeats: Bool
        switch characters[index] {
        case "*", "+":
            length = 1
            repeats = true
        case "?":
            length = 1
            repeats = false
        case "{":
            guard let close = characters[index...].firstIndex(of: "}") else { return nil }
            let inside = String(characters[(index + 1)..<close])
            let bounds = inside.split(separator: ",", omittingEmptySubsequences: false).map { $0.filter { $0 != " " } }
            guard (1...2).contains(bounds.count), let low = Int(bounds[0]) else { return nil }
            if bounds.count == 1 {
                repeats = false
            } else if bounds[1].isEmpty {
                repeats = true
            } else {
                guard let high = Int(bounds[1]) else { return nil }
                repeats = high > 1 && high > low
            }
            length = close - index + 1
        default:
            return nil
        }
        var possessive = false
        if index + length < characters.count, characters[index + length] == "?" || characters[index + length] == "+" {
            possessive = characters[index + length] == "+"
            length += 1
        }
        return (length, repeats, possessive)
    }
}
