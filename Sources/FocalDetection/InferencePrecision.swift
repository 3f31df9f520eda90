internal import CFocalInference

/// The arithmetic a model runs in on the CPU.
///
/// Each detector takes the first precision of its own preference that the settings allow
/// (`InferenceSettings.precisions`), the CPU runs fast (`supportedByCPU`) and its model files
/// offer; fp32 is always possible. The choice is part of the detector's identifier, so that
/// cached subjects and compiled models of one precision never stand in for another's.
public enum InferencePrecision: String, CaseIterable, Sendable, Hashable {
    /// 32-bit floating point: every CPU, the reference.
    case fp32
    /// bfloat16 (OpenVINO's `INFERENCE_PRECISION_HINT`): CPUs with AVX-512 BF16 or AMX.
    case bf16
    /// A model quantized to 8-bit integers at setup (NNCF): CPUs with AVX2 or later, fastest
    /// with VNNI.
    case int8

    /// The precisions this CPU runs, read once from CPUID: fp32 always, int8 on x86-64 with AVX2
    /// (OpenVINO's int8 kernels; VNNI makes them about 2.7x fp32, plain AVX2 about 1.9x), bf16 with
    /// AVX-512 BF16 or AMX-BF16 (elsewhere OpenVINO would ignore the hint and run fp32).
    public static let supportedByCPU: Set<InferencePrecision> = supported(features: CPUFeatures.current)

    /// The precisions a CPU with `features` runs.
    static func supported(features: CPUFeatures) -> Set<InferencePrecision> {
        var set: Set<InferencePrecision> = [.fp32]
        if features.contains(.avx2) { set.insert(.int8) }
        if features.contains(.bf16) { set.insert(.bf16) }
        return set
    }

    /// The first of `preference` that `allowed` holds, this CPU runs and `available` says the
    /// model files offer; `.fp32` when none is.
    static func choose(
        _ preference: [InferencePrecision], allowed: Set<InferencePrecision>, available: (InferencePrecision) -> Bool = { _ in true }
    ) -> InferencePrecision {
        preference.first { allowed.contains($0) && supportedByCPU.contains($0) && available($0) } ?? .fp32
    }

    /// The precisions measured lossless against fp32 on Focal's development and stress sets,
    /// which settings allow by default: fp32 and int8. bf16 is left out until it is measured so:
    /// none of the machines Focal's gates ran on had BF16.
    public static let measuredLossless: Set<InferencePrecision> = [.fp32, .int8]

    /// The precisions a setting allows: `auto` those `measuredLossless` (each model its fastest),
    /// `bf16` bf16 besides them (where the CPU has it), `fp32` fp32 only; nil for any other text.
    public static func allowed(bySetting text: String) -> Set<InferencePrecision>? {
        switch text.lowercased() {
        case "auto": measuredLossless
        case "bf16": measuredLossless.union([.bf16])
        case "fp32": [.fp32]
        default: nil
        }
    }

    /// What OpenVINO's CPU plugin says this CPU offers (its OPTIMIZATION_CAPABILITIES, e.g.
    /// "FP32 INT8 BIN EXPORT_IMPORT", with "BF16" where bf16 runs natively); loads OpenVINO.
    public static func openVINOCapabilities() throws(DetectionError) -> [String] {
        try InferenceRuntime.shared(cacheFolder: nil).cpuCapabilities()
    }

    /// The identifier's part that names it: empty for fp32, so that identifiers (and the cache
    /// keys made of them) from before precisions were chosen stay valid.
    var identifierPart: String { self == .fp32 ? "" : rawValue + "/" }
}

/// The CPU features that decide a precision (`focal_cpu_features`).
public struct CPUFeatures: OptionSet, Sendable, CustomStringConvertible {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let avx2 = CPUFeatures(rawValue: Int(FOCAL_CPU_AVX2))
    public static let avx512 = CPUFeatures(rawValue: Int(FOCAL_CPU_AVX512))
    public static let vnni = CPUFeatures(rawValue: Int(FOCAL_CPU_VNNI))
    public static let bf16 = CPUFeatures(rawValue: Int(FOCAL_CPU_BF16))
    public static let amx = CPUFeatures(rawValue: Int(FOCAL_CPU_AMX))

    /// This CPU's, read once.
    public static let current = CPUFeatures(rawValue: Int(focal_cpu_features()))

    /// The names of the features present, e.g. "AVX2 AVX-512 VNNI"; "none" when there are none.
    public var description: String {
        let names: [(CPUFeatures, String)] = [(.avx2, "AVX2"), (.avx512, "AVX-512"), (.vnni, "VNNI"), (.bf16, "BF16"), (.amx, "AMX")]
        let present = names.filter { contains($0.0) }.map(\.1)
        return present.isEmpty ? "none" : present.joined(separator: " ")
    }
}
