import HTTPTypes

/// Headers every answer of `focal serve` carries, so that nothing it sends can be read as
/// something else: `X-Content-Type-Options: nosniff` everywhere, and a Content-Security-Policy
/// that forbids images (and JSON opened as a page) to run or load anything.
enum ImageHeaders {
    /// The policy of images, originals and JSON: nothing may load, and the document is sandboxed.
    static let contentSecurityPolicy = "default-src 'none'; sandbox"

    /// The policy of the web page: its own scripts, styles and API; images from itself, `blob:`
    /// (crops fetched by `<focal-img>`) and `data:`; no plugins, no framing by other sites.
    static let pagePolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'self'"
}
