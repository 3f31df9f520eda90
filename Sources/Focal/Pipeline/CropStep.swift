import FocalRuntime

/// One named step of a crop or a plan: it reads what the job knows, does one thing, and writes
/// what it learnt back into the job (`CropJob`).
///
/// A job runs a list of steps in order (`FocalPipeline.cropSteps`, `planSteps`, `analysisSteps`);
/// after each, the steps that wait on what may have just become known run
/// (`FocalPipeline.whenKnown`: the target, the saved crop, the result lookup), so the result is
/// looked up exactly once, as soon as its key can be made. A step that finds nothing to do
/// (what it makes is known already, or what it needs is not) returns at once; a step may finish
/// the job (a cached result), and the steps after it do not run.
///
/// Adding a step (a watermark, a redaction, a loop over an animation's frames) is one type that
/// conforms, named in the list where it belongs.
protocol CropStep: Sendable {
    /// The step's name, for logs, traces and timings (`CropResult.timings`, `Server-Timing`):
    /// lower case and `-`, a token HTTP headers and metric labels take as it is.
    var name: String { get }
    /// Does the step's work on `job`.
    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws
}

extension FocalPipeline {
    /// Runs `steps` in order on `job`, with `whenKnown` after each (and once first), stopping
    /// between steps once cancelled and as soon as a result is known.
    func run(_ job: inout CropJob, _ steps: [any CropStep]) async throws {
        try await runWhenKnown(&job)
        for step in steps where !job.finished {
            try Task.checkCancellation()
            try await StepClock.time(step.name) { try await step.run(&job, in: self) }
            try await runWhenKnown(&job)
        }
    }

    /// The steps that run as soon as what they need is known.
    func runWhenKnown(_ job: inout CropJob) async throws {
        for step in Self.whenKnown where !job.finished {
            try await StepClock.time(step.name) { try await step.run(&job, in: self) }
        }
    }

    /// Steps that wait on what others learn: the bounds a trim or a relative crop gives (once the
    /// image is open), the target (fixed, or once the image is open and its bounds known), the
    /// saved crop (once the identity and the target are known), the result lookup (once its key
    /// can be made).
    static let whenKnown: [any CropStep] = [ResolveBounds(), ResolveTarget(), FindSavedCrop(), LoadOverlays(), LookUpResult()]

    /// A crop: fetch and identify, open, plan its one frame (the saved crop applied, subjects
    /// detected), render, store. `plan(_:frames:)` plans each frame with the same steps.
    static let cropSteps: [any CropStep] = [
        PrepareDetection(), Fetch(), Open(), CheckOutput(), ReadAnimation(), ApplySavedCrop(), Detect(), DetectMotion(), PlanFrame(),
        PlanMotion(), OpenOverlays(), FindRedactions(), Render(), Store(),
    ]

    /// The plans of many frames: fetch and identify, open, detect once (`planSteps`); then each
    /// frame is planned by the crop's own steps (`frameSteps`).
    static let planSteps: [any CropStep] = [Fetch(), Open(), ReadAnimation(), Detect(), DetectMotion()]

    /// One frame of a plan, after `planSteps`: as a crop plans its frame.
    static let frameSteps: [any CropStep] = [CheckOutput(), ApplySavedCrop(), PlanFrame(), PlanMotion()]

    /// What an analysis needs: the image open and its subjects found.
    static let analysisSteps: [any CropStep] = [Fetch(), Open(), Detect()]
}
