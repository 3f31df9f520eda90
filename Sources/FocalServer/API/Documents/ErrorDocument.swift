import Focal

/// Every error's JSON body: `{"status", "code", "message"}`, the message the one safe to show.
struct ErrorDocument: Encodable {
    let status: Int
    let code: String
    let message: String
}
