import Focal
import FocalServer
import FocalTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import focal

/// `focal serve`'s settings, declared once in `ServeSetting.all`: each given by flag and by variable,
/// the flag winning, bad values refused by name, every variable in `--help`, secrets never logged,
/// and the request limits reaching the server.
@Suite struct ServeSettingTests {
    /// The command-line arguments that give `texts` to `setting`'s flag: `--name value`, the flag
    /// repeated for each item of a list, the flag alone for a flag.
    static func arguments(_ setting: ServeSetting, _ text: String) -> [String] {
        switch setting.form {
        case .value: [setting.flag, text]
        case .list: text.split(separator: ",").flatMap { [setting.flag, String($0)] }
        case .flag: [setting.flag]
        }
    }

    /// Each setting's sample, as flags (`ServeSetting.sample`), by setting name.
    static var sampleFlags: [String: [String]] {
        var flags: [String: [String]] = [:]
        for setting in ServeSetting.all {
            flags[setting.name] = setting.form == .list ? setting.sample.split(separator: ",").map(String.init) : [setting.form == .flag ? "true" : setting.sample]
        }
        return flags
    }

    /// Each setting's sample, as environment variables.
    static var sampleVariables: [String: String] {
        Dictionary(uniqueKeysWithValues: ServeSetting.all.map { ($0.variable, $0.sample) })
    }

    /// The start-up log's pairs as a dictionary.
    static func logged(_ configuration: ServerConfiguration) -> [String: String] {
        Dictionary(configuration.summary, uniquingKeysWith: { first, _ in first })
    }

    /// Names, flags and variables are unique, and each setting is logged under its name.
    /// A key or token shorter than 24 bytes is warned about at start, by its place (never its
    /// text); a long one is not.
    @Test func shortSecretsAreWarnedAbout() throws {
        let long = String(repeating: "k", count: 32)
        let warned = try ServerConfiguration(flags: ["key": ["x", long], "token": ["short-token"]], environment: [:]).startWarnings
        #expect(warned.count == 2, "\(warned)")
        #expect(warned.first?.hasPrefix("key 1 of 2 is only 1 bytes") == true, "\(warned)")
        #expect(warned.contains { $0.hasPrefix("the token is only 11 bytes") })
        #expect(!warned.joined().contains("short-token") && !warned.joined().contains(long), "no secret is shown")
        #expect(try ServerConfiguration(flags: ["key": [long], "token": [long]], environment: [:]).startWarnings.isEmpty)
    }

    @Test func theListIsConsistent() throws {
        let all = ServeSetting.all
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(Set(all.map(\.variable)).count == all.count)
        // Every variable is Focal's own, but the object store's, which keep AWS's names (AWS_REGION, ...).
        #expect(all.allSatisfy { !$0.summary.isEmpty && !$0.summary.hasSuffix(".") })
        for setting in all {
            #expect(setting.variable.hasPrefix("FOCAL_") || (setting.name.hasPrefix("s3-") && setting.variable.hasPrefix("AWS_")), "\(setting.variable)")
        }
        let logged = Self.logged(try ServerConfiguration(environment: [:]))
        for setting in all { #expect(logged[setting.name] != nil, "\(setting.name) is not logged") }
        // The variables every deployment already uses keep their names.
        for variable in ["FOCAL_HOST", "FOCAL_PORT", "FOCAL_ROOT", "FOCAL_KEYS", "FOCAL_ALLOW_UNSAFE", "FOCAL_TOKEN", "FOCAL_DATABASE", "FOCAL_DATA",
            "FOCAL_ALLOW_SOURCES", "FOCAL_ALLOW_NETWORKS", "FOCAL_METRICS_ALLOW", "FOCAL_PUBLIC_PHOTOS", "FOCAL_CACHE_DIR", "FOCAL_LOG_LEVEL"] {
            #expect(all.contains { $0.variable == variable }, "\(variable)")
        }
    }

    /// With nothing given, the defaults are the library's own (`ServerConfiguration()`), but for
    /// one inference thread per request.
    @Test func defaultsAreTheLibrarys() throws {
        let configuration = try ServerConfiguration(environment: [:])
        var library = ServerConfiguration()
        library.pipeline.inferenceThreads = 1
        #expect(Self.logged(configuration) == Self.logged(library))
        #expect(configuration.pipeline.inferenceThreads == 1 && configuration.requests == RequestLimits())
        #expect(configuration.port == 8080 && configuration.requests.maxFrames == 32 && configuration.requests.maxJSONBytes == 1 << 20)
    }

    /// Every setting given by its flag and, apart, by its variable changes what is logged for it,
    /// the same way.
    @Test func everySettingIsGivenByFlagAndByVariable() throws {
        let defaults = Self.logged(try ServerConfiguration(environment: [:]))
        let byFlag = Self.logged(try ServerConfiguration(flags: Self.sampleFlags, environment: [:]))
        let byVariable = Self.logged(try ServerConfiguration(environment: Self.sampleVariables))
        for setting in ServeSetting.all {
            #expect(byFlag[setting.name] != defaults[setting.name], "\(setting.flag) \(setting.sample) changed nothing")
            #expect(byVariable[setting.name] == byFlag[setting.name], "\(setting.variable)=\(setting.sample)")
        }
    }

    /// The command's options are exactly the list's: each parsed flag reaches the settings under its
    /// setting's name (`ServeCommand.givenFlags`), and each property stands for a setting.
    @Test func theCommandBindsEverySetting() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var arguments: [String] = []
        var expected = Self.sampleFlags
        for setting in ServeSetting.all {
            // `validate()` creates the cache folder: a scratch one.
            let sample = setting.name == ServeSetting.cacheDir.name ? scratch.path : setting.sample
            if setting.name == ServeSetting.cacheDir.name { expected[setting.name] = [sample] }
            arguments += Self.arguments(setting, sample)
        }
        let command = try ServeCommand.parse(arguments)
        #expect(command.givenFlags == expected)
        #expect(try ServeCommand.parse([]).givenFlags.isEmpty)
        let properties = Mirror(reflecting: try ServeCommand.parse([])).children.compactMap(\.label)
        #expect(properties.count == ServeSetting.all.count)
        #expect(properties.map { ServeCommand.setting(forProperty: $0)?.name } == ServeSetting.all.map(\.name))
    }

    /// A flag wins over its variable; a variable set to nothing counts as unset.
    @Test func aFlagWins() throws {
        let environment = [
            "FOCAL_PORT": "9000", "FOCAL_MAX_FRAMES": "4", "FOCAL_KEYS": "variable-key", "FOCAL_TOKEN": "variable-token", "FOCAL_ALLOW_UNSAFE": "0",
            "FOCAL_MAX_JSON_BYTES": "", "FOCAL_HOST": "",
        ]
        let flags = ["port": ["9001"], "max-frames": ["5"], "key": ["flag-key"], "token": ["flag-token"], "allow-unsafe": ["true"]]
        let configuration = try ServerConfiguration(flags: flags, environment: environment)
        #expect(configuration.port == 9001 && configuration.requests.maxFrames == 5)
        #expect(configuration.keys == ["flag-key"] && configuration.token == "flag-token" && configuration.allowUnsafe)
        #expect(configuration.requests.maxJSONBytes == 1 << 20 && configuration.host == "127.0.0.1")
        // Every setting with a default: the variable gives the sample, the flag the default.
        for setting in ServeSetting.all where setting.defaultValue != nil {
            let given = try ServerConfiguration(flags: [setting.name: [setting.defaultValue ?? ""]], environment: Self.sampleVariables)
            let byVariable = try ServerConfiguration(environment: Self.sampleVariables)
            #expect(Self.logged(given)[setting.name] != Self.logged(byVariable)[setting.name], "\(setting.flag)")
        }
    }

    /// Variables of flags take 1, true, yes, on (any case) and 0, false, no, off; a list variable is
    /// comma-separated and trimmed.
    @Test func variablesAreRead() throws {
        for text in ["1", "true", "YES", "on"] { #expect(try ServerConfiguration(environment: ["FOCAL_AUTO_WEBP": text]).autoWebP, "\(text)") }
        for text in ["0", "false", "No", "off"] { #expect(try !ServerConfiguration(environment: ["FOCAL_AUTO_WEBP": text]).autoWebP, "\(text)") }
        let configuration = try ServerConfiguration(environment: ["FOCAL_KEYS": "one, two,,three ", "FOCAL_NO_METRICS": "yes"])
        #expect(configuration.keys == ["one", "two", "three"] && !configuration.metrics)
    }

    /// Values out of range or unreadable are refused with the flag or the variable named, the value
    /// repeated unless it is secret, and what is expected.
    @Test(arguments: [
        (["max-frames": ["0"]], [:], "--max-frames 0: must be between 1 and 1024."),
        ([:], ["FOCAL_MAX_FRAMES": "5000"], "FOCAL_MAX_FRAMES=5000: must be between 1 and 1024."),
        (["max-sign-paths": ["many"]], [:], "--max-sign-paths many: not a whole number; give one between 1 and 100000."),
        ([:], ["FOCAL_MAX_JSON_BYTES": "100"], "FOCAL_MAX_JSON_BYTES=100: must be between 1024 and 67108864."),
        (["port": ["70000"]], ["FOCAL_PORT": "80"], "--port 70000: must be between 0 and 65535."),
        ([:], ["FOCAL_REQUEST_TIMEOUT": "0"], "FOCAL_REQUEST_TIMEOUT=0: must be more than 0 and at most 3600 seconds."),
        (["header-timeout": ["soon"]], [:], "--header-timeout soon: not a number of seconds; give one more than 0 and at most 3600."),
        ([:], ["FOCAL_MEMORY_BUDGET": "8"], "FOCAL_MEMORY_BUDGET=8: must be between 16 and 1048576."),
        ([:], ["FOCAL_ALLOW_UNSAFE": "maybe"], "FOCAL_ALLOW_UNSAFE=maybe: must be 1, true, yes or on (or 0, false, no, off)."),
        ([:], ["FOCAL_LOG_LEVEL": "loud"], "FOCAL_LOG_LEVEL=loud: must be trace, debug, info, notice, warning, error or critical."),
        (["root": ["/no/such/folder"]], [:], "--root /no/such/folder: not a folder."),
        (["key": [""]], [:], "--key: a key may not be empty."),
        ([:], ["FOCAL_DATABASE": "mysql://u:hunter2@h/d"], "FOCAL_DATABASE: must be a URL like postgres://user:password@host:5432/database."),
    ] as [([String: [String]], [String: String], String)])
    func badValuesAreRefusedByName(_ flags: [String: [String]], _ environment: [String: String], _ message: String) {
        #expect(throws: SettingError.self) { try ServerConfiguration(flags: flags, environment: environment) }
        do {
            _ = try ServerConfiguration(flags: flags, environment: environment)
        } catch {
            #expect(error.description == message)
        }
    }

    /// The real command reports a bad value as a usage error (exit 64) naming the flag or the
    /// variable, and refuses a flag no setting has.
    @Test func theCommandRefusesBadValues() async throws {
        let flag = try await Run(["serve", "--max-frames", "0"])
        #expect(flag.status == 64 && flag.stderr.contains("--max-frames 0: must be between 1 and 1024"), "\(flag.stderr)")
        var environment = ProcessInfo.processInfo.environment
        environment["FOCAL_MAX_SIGN_PATHS"] = "0"
        let variable = try await Run(["serve"], environment: environment)
        #expect(variable.status == 64 && variable.stderr.contains("FOCAL_MAX_SIGN_PATHS=0: must be between 1 and 100000"), "\(variable.stderr)")
        let unknown = try await Run(["serve", "--max-frame", "3"])
        #expect(unknown.status == 64 && unknown.stderr.contains("--max-frame"), "\(unknown.stderr)")
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--no-such-flag"]) }
    }

    /// `focal serve --help` names every flag and every variable of the list, with the defaults.
    @Test func helpNamesEveryVariable() async throws {
        let help = ServeCommand.helpMessage(columns: 220)
        for setting in ServeSetting.all {
            #expect(help.contains(setting.flag), "\(setting.flag)")
            #expect(help.contains(setting.variable), "\(setting.variable)")
            if let defaultValue = setting.defaultValue { #expect(help.contains("default \(defaultValue)"), "\(setting.flag)") }
        }
        let printed = try await Run(["serve", "--help"])
        #expect(printed.status == 0 && ServeSetting.all.allSatisfy { printed.stdout.contains($0.variable) }, "\(printed.stdout)")
    }

    /// The start-up log shows no secret, not even in part: keys and the token neither whole nor by
    /// their first or last characters, the database URL without its password.
    @Test func theLogHidesSecrets() throws {
        let keys = ["Pk4rTy8Jd1Qa", "Hn6sLw3Qf5Ze"], token = "Zq7xKv9Wm2Rb", password = "Xc2vBn8Mz4Gu"
        let database = "postgres://focal:\(password)@db.example:5432/focal"
        let configurations = [
            try ServerConfiguration(flags: ["key": keys, "token": [token], "database": [database]], environment: [:]),
            try ServerConfiguration(environment: ["FOCAL_KEYS": keys.joined(separator: ","), "FOCAL_TOKEN": token, "FOCAL_DATABASE": database]),
        ]
        for configuration in configurations {
            let summary = configuration.summary.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
            for secret in keys + [token, password] {
                for length in 3...secret.count {
                    #expect(!summary.contains(secret.prefix(length)) && !summary.contains(secret.suffix(length)), "\(secret) in \(summary)")
                }
            }
            let logged = Self.logged(configuration)
            #expect(logged["key"] == "2 (hidden)" && logged["token"] == "(set, hidden)")
            #expect(logged["database"] == "postgres://focal:***@db.example:5432/focal")
        }
        // A URL that does not parse, or hides a password in its query, is not shown either.
        for url in ["postgres://focal:\(password)#x y@db/focal", "postgres://db/focal?password=\(password)"] {
            let logged = Self.logged(ServerConfiguration(database: url))["database"] ?? ""
            #expect(!logged.contains(password.prefix(3)) && !logged.contains(password.suffix(3)), "\(logged)")
        }
        // A secret the setting refuses is not repeated in the error either.
        do {
            _ = try ServerConfiguration(environment: ["FOCAL_DATABASE": "postgres://focal:\(password)@"])
            Issue.record("a database URL without a host was taken")
        } catch {
            #expect(!error.description.contains(password.prefix(3)))
        }
    }

    /// Request limits set by flag or variable reach the server: more frames than `--max-frames`,
    /// more paths than `FOCAL_MAX_SIGN_PATHS`, a body past `--max-json-bytes` are refused.
    @Test func requestLimitsReachTheServer() async throws {
        let flags = [
            "root": [Checkout.root.appendingPathComponent("Fixtures").path], "models": [Checkout.models], "workers": ["2"], "allow-unsafe": ["true"],
            "key": ["a-key"], "token": ["a-token"], "max-frames": ["2"], "max-json-bytes": ["2048"],
        ]
        let configuration = try ServerConfiguration(flags: flags, environment: ["FOCAL_MAX_SIGN_PATHS": "2"])
        let app = try await buildApplication(configuration: configuration, logger: testLogger)
        try await app.test(.router) { client in
            func plan(_ frames: Int) -> ByteBuffer {
                let frame = #"{"aspect":"1:1"}"#
                return ByteBuffer(string: #"{"source":{"path":"astronaut.png"},"frames":["# + Array(repeating: frame, count: frames).joined(separator: ",") + "]}")
            }
            try await client.execute(uri: "/v1/plan", method: .post, body: plan(2)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/v1/plan", method: .post, body: plan(3)) { response in
                #expect(response.status == .badRequest)
                #expect(String(decoding: response.data, as: UTF8.self).contains("between 1 and 2 frames"))
            }
            let padded = ByteBuffer(string: #"{"source":{"path":"astronaut.png"},"frames":[{"aspect":"1:1"}],"pad":""# + String(repeating: " ", count: 2048) + "\"}")
            try await client.execute(uri: "/v1/plan", method: .post, body: padded) { #expect($0.status == .contentTooLarge) }
            let auth: HTTPFields = [.authorization: "Bearer a-token"]
            try await client.execute(uri: "/v1/sign", method: .post, headers: auth, body: ByteBuffer(string: #"{"paths":["a.jpg","b.jpg"]}"#)) {
                #expect($0.status == .ok)
            }
            try await client.execute(uri: "/v1/sign", method: .post, headers: auth, body: ByteBuffer(string: #"{"paths":["a.jpg","b.jpg","c.jpg"]}"#)) {
                #expect($0.status == .badRequest)
            }
        }
    }
}
