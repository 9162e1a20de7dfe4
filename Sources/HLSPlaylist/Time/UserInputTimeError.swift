/// A user-given time (a JSON body, a command-line option, an asset-list query) whose magnitude
/// exceeds ``MediaTime/userInputLimit``.
///
/// The one error, and the one message, for that bound: ``MediaTime/checkedUserInput()`` and
/// ``MediaTime/userInput(seconds:text:)`` throw it, and every input path reports its ``description``
/// under its own field or option.
public struct UserInputTimeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value as the user gave it (`1e300`, `315360001`).
    public var text: String

    /// Creates the error for the value given as `text`.
    public init(text: String) { self.text = text }

    /// `TEXT s is out of range (at most 315360000 s either way)`.
    public var description: String { "\(text) s is out of range (at most \(MediaTime.userInputLimit) s either way)" }
}
