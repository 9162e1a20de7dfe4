import ArgumentParser
import HLSPlaylist

/// Checks a number of seconds given as a command-line option: not negative (or, unless
/// `allowsZero`, positive) and within the one bound for user-given times
/// (``MediaTime/checkedUserInput()``), with that bound's message under the option's name.
func checkSeconds(_ value: Double?, _ option: String, allowsZero: Bool = true) throws {
    guard let value else { return }
    guard allowsZero ? value >= 0 : value > 0 else {
        throw ValidationError("\(option) must be a \(allowsZero ? "non-negative" : "positive") number of seconds")
    }
    do {
        _ = try MediaTime.userInput(seconds: value, text: "\(value)")
    } catch {
        throw ValidationError("\(option): \(error)")
    }
}
