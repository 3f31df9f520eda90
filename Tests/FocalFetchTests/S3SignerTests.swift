import Crypto
@testable import FocalFetch
import FocalTestSupport
import Foundation
import Testing

/// Focal's Signature V4 signer against AWS's published example and against botocore (pinned in
/// `.cache/botocore-venv`, its clock fixed) on requests like the ones Focal sends: GET with a
/// range, HEAD, PUT with a body, ListObjectsV2 with characters that need encoding, keys outside
/// ASCII, a session token, a custom endpoint with a port.
@Suite struct S3SignerTests {
    static let example = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    static let may24 = Date(timeIntervalSince1970: 1_369_353_600)  // 2013-05-24T00:00:00Z

    /// AWS's documented example: GET /test.txt with `Range: bytes=0-9`.
    @Test func awsPublishedVector() {
        let headers = S3Signer(credentials: Self.example, region: "us-east-1").headers(
            method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", headers: [("Range", "bytes=0-9")], date: Self.may24)
        let authorization = headers.first { $0.0 == "authorization" }?.1
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers.contains { $0 == ("x-amz-date", "20130524T000000Z") })
    }

    struct Case: Encodable {
        let method: String
        let host: String
        let path: String
        let query: [[String]]
        let headers: [[String]]
        let body: String
        let date: String
        let key: String
        let secret: String
        let token: String?
        let region: String
    }

    @Test func botocoreAgrees() throws {
        let token = "IQoJb3JpZ2luX2VjEHcaCXVzLWVhc3QtMSJHMEUCIQD/session+token=="
        let when = Date(timeIntervalSince1970: 1_795_757_445)  // 2026-11-27T05:30:45Z
        let key = "photos/été 2026/Ünïcødé (1)+a=b&c;d~e*f'g.jpg"
        let cases: [(method: String, host: String, key: String?, bucket: String?, query: [(String, String)], headers: [(String, String)], body: String, token: String?, region: String)] = [
            ("GET", "127.0.0.1:8333", key, "photos", [], [("Range", "bytes=0-1023")], "", nil, "us-east-1"),
            ("HEAD", "127.0.0.1:8333", "a/b.jpg", "photos", [], [], "", token, "eu-west-3"),
            ("PUT", "photos.s3.eu-central-1.amazonaws.com", "uploads/" + String(repeating: "ab", count: 32), nil, [],
             [("Content-Type", "image/jpeg")], "the bytes of an upload", nil, "eu-central-1"),
            ("GET", "127.0.0.1:8333", nil, "photos",
             [("list-type", "2"), ("prefix", "team/a b+c/é"), ("max-keys", "1000"), ("encoding-type", "url"),
              ("continuation-token", "1/Zm9v+YmFy=="), ("start-after", "x*y~z")], [], "", token, "us-east-1"),
            ("GET", "s3.us-east-1.amazonaws.com", nil, "bucket.with.dots", [("list-type", "2"), ("prefix", "")], [], "", nil, "us-east-1"),
        ]
        let signer = { (region: String, token: String?) in
            S3Signer(credentials: S3Credentials(accessKeyID: Self.example.accessKeyID, secretAccessKey: Self.example.secretAccessKey, sessionToken: token), region: region)
        }
        var inputs: [Case] = []
        var ours: [[String: String]] = []
        for c in cases {
            let path = (c.bucket.map { "/" + $0 } ?? "") + (c.key.map { "/" + S3Signer.encodePath($0) } ?? (c.bucket == nil ? "/" : ""))
            let hash = S3Signer.hex(SHA256.hash(data: Data(c.body.utf8)))
            inputs.append(Case(
                method: c.method, host: c.host, path: path, query: c.query.map { [$0.0, $0.1] }, headers: c.headers.map { [$0.0, $0.1] },
                body: c.body, date: S3Signer.timestamp(when), key: Self.example.accessKeyID, secret: Self.example.secretAccessKey, token: c.token,
                region: c.region))
            let headers = signer(c.region, c.token).headers(
                method: c.method, host: c.host, path: path, query: c.query, headers: c.headers, payloadHash: hash, date: when)
            ours.append(Dictionary(headers, uniquingKeysWith: { first, _ in first }))
        }
        let theirs = try Self.botocore(inputs)
        #expect(theirs.count == cases.count)
        for (index, (mine, reference)) in zip(ours, theirs).enumerated() {
            #expect(mine == reference, "case \(index): \(cases[index].method) \(inputs[index].path)")
        }
    }

    /// botocore's headers for `cases`, from the pinned venv.
    static func botocore(_ cases: [Case]) throws -> [[String: String]] {
        let python = Checkout.root.path + "/.cache/botocore-venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw LoopbackError("botocore is not installed: run scripts/setup.sh botocore (make test-deps)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Checkout.root.path + "/Tests/FocalFetchTests/botocore_sigv4.py"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        input.fileHandleForWriting.write(try JSONEncoder().encode(cases))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let words = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw LoopbackError("botocore_sigv4.py failed (\(process.terminationStatus)): \(words.suffix(600))")
        }
        return try JSONDecoder().decode([[String: String]].self, from: data)
    }

    @Test func encodingKeepsOnlyUnreservedCharacters() {
        #expect(S3Signer.encodePath("a b/c+d=é~._-") == "a%20b/c%2Bd%3D%C3%A9~._-")
        #expect(S3Signer.encode("a/b", keepSlash: false) == "a%2Fb")
        #expect(S3Signer.canonicalQuery([("b", "2"), ("a", "x y"), ("a", "1")]) == "a=1&a=x%20y&b=2")
    }

    @Test func credentialsNeverPrintTheirSecrets() {
        let credentials = S3Credentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t-value", sessionToken: "t0ken-value")
        var dumped = ""
        dump(credentials, to: &dumped)
        for text in ["\(credentials)", String(describing: credentials), String(reflecting: credentials), dumped, "\(Optional(credentials) as Any)"] {
            #expect(!text.contains("s3cr3t") && !text.contains("t0ken"), "\(text)")
            #expect(text.contains("AKID"))
        }
    }
}
