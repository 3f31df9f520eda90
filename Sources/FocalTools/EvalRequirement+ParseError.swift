public import Focal

extension EvalRequirement {
    /// A requirement that does not read: the text given and what is wrong with it.
    public struct ParseError: FocalError, Hashable {
        /// Always `request.invalid`: the command line is at fault.
        public var code: ErrorCode { .requestInvalid }
        /// The text that was given.
        public var text: String
        /// What is wrong with it and what is expected instead.
        public var message: String

        /// Creates an error about `text`.
        public init(_ text: String, _ message: String) {
            self.text = text
            self.message = message
        }

        /// A sentence without the text itself.
        public var publicMessage: String { "a requirement is not valid" }

        public var description: String { "--require: \"\(text.oneLine)\" \(message.oneLine)" }
    }
}
