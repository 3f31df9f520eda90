import Foundation
@testable import FocalServer
import Testing

/// thumbor's signatures: HMAC-SHA1, URL-safe base64, several keys.
@Suite struct URLSignerTests {
    /// The reference value was computed with Python's hmac and base64 modules, the way
    /// libthumbor's CryptoURL signs: urlsafe_b64encode(hmac.new(key, path, sha1).digest()).
    @Test func matchesLibthumbor() {
        #expect(URLSigner.signature(of: "300x200/smart/astronaut.png", key: "secret2") == "M1XlzyVU0aFfk1OF1vwvYlqzxok=")
    }

    @Test func everyKeyVerifiesAndOthersDoNot() {
        let signer = URLSigner(keys: ["old", "new"])
        let path = "400x400/smart/a.jpg"
        #expect(signer.verify(URLSigner.signature(of: path, key: "old"), path: path))
        #expect(signer.verify(URLSigner.signature(of: path, key: "new"), path: path))
        #expect(!signer.verify(URLSigner.signature(of: path, key: "other"), path: path))
        #expect(!signer.verify(URLSigner.signature(of: path, key: "new"), path: path + "x"), "the whole path is signed")
        #expect(!signer.verify("", path: path))
        #expect(!URLSigner(keys: []).verify(URLSigner.signature(of: path, key: "new"), path: path), "no key verifies nothing")
        // Compared as sent: the same signature percent-encoded is another spelling, and does not verify.
        let encoded = URLSigner.signature(of: path, key: "new").replacingOccurrences(of: "=", with: "%3D")
        #expect(!signer.verify(encoded, path: path))
    }

    @Test func comparisonIsByContent() {
        #expect(URLSigner.constantTimeEqual(Array("abc".utf8), Array("abc".utf8)))
        #expect(!URLSigner.constantTimeEqual(Array("abc".utf8), Array("abd".utf8)))
        #expect(!URLSigner.constantTimeEqual(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!URLSigner.constantTimeEqual([], Array("a".utf8)))
    }
}
