/// Whom work is done for: the client a server answers, so that shared capacity is shared between
/// clients instead of going to whoever asks fastest.
///
/// `focal serve` sets it for each request (the client's address, `ServerConfiguration.trustedProxies`
/// telling when to read `X-Forwarded-For` instead). Work started in a task inherits it. Two
/// places read it: `NativeWorkPool`, whose waiting work takes turns by lane, and the pipeline's
/// admission gate, which lets one lane hold at most half of its job places and memory budget.
/// Outside a server (the CLI, a library call) it is nil, and nothing is shared out.
public enum WorkLane {
    /// The lane of the work this task does; nil when it is done for no client in particular.
    @TaskLocal public static var current: String?
}
