/// One crop window for every frame of an animation: still when one window holds the subjects of
/// every sampled frame, else moving smoothly after them.
///
/// The window keeps the size of the plan made from every sampled frame's subjects at once. When
/// that plan's crop holds what each sampled frame's own plan was built around, every frame uses
/// it. Otherwise each sampled frame's own plan gives the window's position at that frame's time;
/// between samples it eases (smoothstep) from one to the next, and then no frame's window moves
/// more than `maxStep(for:)` pixels from the last, on either axis: it never jumps.
public enum MotionPlanner {
    /// A sampled frame and its plan (made from that frame's subjects alone).
    public struct Sample: Sendable {
        /// The frame's index.
        public var frame: Int
        /// Its own plan.
        public var plan: CropPlan

        /// Creates a sample.
        public init(frame: Int, plan: CropPlan) {
            self.frame = frame
            self.plan = plan
        }
    }

    /// The most a window of `size` moves between two frames, per axis: 5 % of its side, at least 2 px.
    public static func maxStep(for size: PixelSize) -> (x: Int, y: Int) {
        (max(2, size.width / 20), max(2, size.height / 20))
    }

    /// Whether `plan`'s crop holds what a sample's own plan was built around (its subjects'
    /// boxes, within 2 % of the window's side).
    public static func holds(_ crop: PixelRect, _ sample: CropPlan) -> Bool {
        guard let first = sample.subjects.first, sample.strategy != .center, sample.strategy != .saliency else { return true }
        let needed = sample.subjects.dropFirst().reduce(first.box) { $0.union($1.box) }
        let slack = 0.02 * Double(max(crop.width, crop.height))
        return crop.box.contains(needed.clamped(to: sample.imageSize), tolerance: slack)
    }

    /// Every frame's crop.
    /// - Parameters:
    ///   - merged: The plan from every sampled frame's subjects at once; its crop's size is every
    ///     window's.
    ///   - samples: Sampled frames and their own plans, in frame order.
    ///   - delays: Every frame's delay in milliseconds.
    ///   - canvas: The size of each frame.
    /// - Returns: One crop per frame.
    public static func frames(merged: CropPlan, samples: [Sample], delays: [Int], canvas: PixelSize) -> [FrameCrop] {
        let size = merged.crop.size
        let still = samples.allSatisfy { holds(merged.crop, $0.plan) }
        guard !still, size.width <= canvas.width, size.height <= canvas.height else {
            return delays.map { FrameCrop(crop: merged.crop, delay: $0) }
        }
        // Each sample's window: its own plan's centre, with the merged size, inside the canvas.
        // A sample whose plan is built around nothing takes the merged window.
        let keys: [(time: Double, x: Double, y: Double)] = samples.map { sample in
            let time = Double(startTime(of: sample.frame, delays: delays))
            let centre = sample.plan.strategy == .center ? merged.crop.box : sample.plan.crop.box
            let x = clamp(centre.midX - Double(size.width) / 2, 0, Double(canvas.width - size.width))
            let y = clamp(centre.midY - Double(size.height) / 2, 0, Double(canvas.height - size.height))
            return (time, x, y)
        }
        var positions: [(x: Double, y: Double)] = []
        for frame in delays.indices {
            let time = Double(startTime(of: frame, delays: delays))
            guard let first = keys.first, let last = keys.last else { break }
            if time <= first.time {
                positions.append((first.x, first.y))
            } else if time >= last.time {
                positions.append((last.x, last.y))
            } else {
                let next = keys.firstIndex { $0.time >= time } ?? keys.count - 1
                let a = keys[max(0, next - 1)], b = keys[next]
                let t = b.time > a.time ? (time - a.time) / (b.time - a.time) : 1
                let eased = t * t * (3 - 2 * t)
                positions.append((a.x + (b.x - a.x) * eased, a.y + (b.y - a.y) * eased))
            }
        }
        // Bound the speed: a pass forwards, then one backwards, which leaves every step within it.
        let step = maxStep(for: size)
        var xs = positions.map { Int($0.x.rounded()) }, ys = positions.map { Int($0.y.rounded()) }
        for i in xs.indices.dropFirst() {
            xs[i] = min(max(xs[i], xs[i - 1] - step.x), xs[i - 1] + step.x)
            ys[i] = min(max(ys[i], ys[i - 1] - step.y), ys[i - 1] + step.y)
        }
        for i in xs.indices.reversed().dropFirst() {
            xs[i] = min(max(xs[i], xs[i + 1] - step.x), xs[i + 1] + step.x)
            ys[i] = min(max(ys[i], ys[i + 1] - step.y), ys[i + 1] + step.y)
        }
        return delays.indices.map { i in
            let x = min(max(0, xs[i]), canvas.width - size.width), y = min(max(0, ys[i]), canvas.height - size.height)
            return FrameCrop(crop: PixelRect(x: x, y: y, width: size.width, height: size.height), delay: delays[i])
        }
    }

    /// Which frames to detect on: all when there are at most `count`, else `count` spread evenly
    /// over the frames, the first and the last among them.
    public static func sampledFrames(_ frames: Int, count: Int) -> [Int] {
        guard frames > count, count > 1 else { return Array(0..<max(0, frames)) }
        return (0..<count).map { Int((Double($0) * Double(frames - 1) / Double(count - 1)).rounded()) }
    }

    private static func startTime(of frame: Int, delays: [Int]) -> Int {
        delays.prefix(frame).reduce(0) { $0.addingReportingOverflow(max(0, $1)).overflow ? $0 : $0 + max(0, $1) }
    }

    private static func clamp(_ value: Double, _ low: Double, _ high: Double) -> Double { min(max(value, low), max(low, high)) }
}
