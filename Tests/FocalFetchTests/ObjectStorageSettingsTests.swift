import FocalCore
@testable import FocalFetch
import Foundation
import Testing

/// Settings from AWS's variables, object addresses and listings: what is refused and why, and no
/// secret repeated in a message.
@Suite struct ObjectStorageSettingsTests {
    @Test func theEnvironmentAsAWSToolsReadIt() throws {
        #expect(try ObjectStorageSettings(environment: ["HOME": "/root"]) == nil)
        let settings = try #require(
            try ObjectStorageSettings(environment: [
                "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "sekrit", "AWS_SESSION_TOKEN": "tok",
                "AWS_DEFAULT_REGION": "eu-west-3", "AWS_ENDPOINT_URL": "http://127.0.0.1:8333/",
            ]))
        #expect(settings.region == "eu-west-3")
        #expect(settings.endpoint?.absoluteString == "http://127.0.0.1:8333")
        #expect(settings.credentials?.sessionToken == "tok")
        #expect(settings.usesPathStyle(for: "photos"), "a custom endpoint: path-style")
        #expect(!ObjectStorageSettings(region: "us-east-1").usesPathStyle(for: "photos"), "AWS: virtual-hosted")
        #expect(ObjectStorageSettings(region: "us-east-1").usesPathStyle(for: "my.bucket"), "dots: path-style")
    }

    @Test func refusalsNameTheProblemNotTheSecret() {
        let cases: [[String: String]] = [
            ["AWS_ACCESS_KEY_ID": "AKID"],
            ["AWS_SECRET_ACCESS_KEY": "sekrit-value"],
            ["AWS_REGION": "x@evil.example#"],
            ["AWS_ENDPOINT_URL_S3": "https://AKID:sekrit-value@store.example"],
            ["AWS_ENDPOINT_URL_S3": "ftp://store.example"],
        ]
        for environment in cases {
            do {
                _ = try ObjectStorageSettings(environment: environment)
                Issue.record("accepted \(environment)")
            } catch {
                #expect(error.code == .storageNotConfigured)
                #expect(!error.description.contains("sekrit"), "\(error.description)")
            }
        }
    }

    @Test func addressesAndTheirTargets() throws {
        #expect(ObjectAddress("s3://photos/team/a b.jpg")?.key == "team/a b.jpg")
        for bad in ["s3://Photos/a.jpg", "s3://ph/a.jpg", "s3://photos/", "s3://photos", "s3://-photos/a.jpg", "http://photos/a.jpg", "s3://photos/a\u{7}.jpg"] {
            #expect(ObjectAddress(bad) == nil, "\(bad)")
        }
        let address = try #require(ObjectAddress(bucket: "photos", key: "a/é.jpg"))
        let path = S3Client(settings: ObjectStorageSettings(endpoint: URL(string: "http://127.0.0.1:8333"))).target(bucket: address.bucket, key: address.key)
        #expect(path.base == "http://127.0.0.1:8333" && path.path == "/photos/a/%C3%A9.jpg" && path.host == "127.0.0.1:8333")
        let aws = S3Client(settings: ObjectStorageSettings(region: "eu-west-3")).target(bucket: "photos", key: "a.jpg")
        #expect(aws.host == "photos.s3.eu-west-3.amazonaws.com" && aws.path == "/a.jpg")
        let v6 = S3Client(settings: ObjectStorageSettings(endpoint: URL(string: "http://[::1]:8333"))).target(bucket: "photos", key: "a.jpg")
        #expect(v6.base == "http://[::1]:8333" && v6.host == "[::1]:8333")
    }

    @Test func listingsDecodeKeysOnlyWhenTheStoreEncodedThem() throws {
        let encoded = """
            <?xml version="1.0"?><ListBucketResult><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
            <Contents><Key>a+b%2Bc%C3%A9.jpg</Key><Size>12</Size><ETag>&quot;e1&quot;</ETag></Contents>
            <Contents><Key>bad%+f.jpg</Key><Size>1</Size></Contents>
            <NextContinuationToken>tok/1==</NextContinuationToken></ListBucketResult>
            """
        let page = try S3Listing.page(encoded, address: "s3://photos/")
        #expect(page.objects.map(\.key) == ["a b+cé.jpg"], "a malformed escape is skipped, not guessed")
        #expect(page.objects.first?.etag == "\"e1\"" && page.objects.first?.size == 12)
        #expect(page.next == "tok/1==")
        let plain = "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a+b%41 &amp; c.jpg</Key><Size>3</Size></Contents></ListBucketResult>"
        let literal = try S3Listing.page(plain, address: "s3://photos/")
        #expect(literal.objects.map(\.key) == ["a+b%41 & c.jpg"] && literal.next == nil)
        #expect(throws: StorageError.self) { try S3Listing.page("<Error><Code>AccessDenied</Code></Error>", address: "s3://photos/") }
    }
}
