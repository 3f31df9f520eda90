import FocalCore

/// The crop of every frame of an animated output (`MotionPlanner`): one window that holds the
/// subjects of every sampled frame, or one that moves smoothly after them when no window can. A
/// crop without detection (a focus point, a saved crop, detection off) uses its one crop for every
/// frame. An output over `ImageLimits.maxAnimationOutputPixels` is refused, or still.
struct PlanMotion: CropStep {
    let name = "plan-frames"

    func run(_ job: inout CropJob, in pipeline: FocalPipeline) async throws {
        guard let animation = job.animation, var plan = job.plan, plan.frames == nil, let image = job.image, let target = job.target
        else { return }
        let options = job.planCrop
        if let samples = job.frameSubjects, samples.count > 1, options.override == nil, options.needsDetection {
            let everything = samples.flatMap(\.subjects)
            var merged = try CropPlanner.plan(imageSize: image.size, target: target, subjects: everything, options: options)
            let own = try samples.map { sample in
                MotionPlanner.Sample(
                    frame: sample.frame,
                    plan: try CropPlanner.plan(imageSize: image.size, target: target, subjects: sample.subjects, options: options))
            }
            let frames = MotionPlanner.frames(merged: merged, samples: own, delays: animation.delays, canvas: animation.canvas)
            if let first = frames.first { merged.crop = first.crop }
            merged.frames = frames
            plan = merged
        } else {
            plan.frames = animation.delays.map { FrameCrop(crop: plan.crop, delay: $0) }
        }
        // The output the frames make (an aspect's is the merged crop's size), within the limits.
        let limits = pipeline.configuration.limits
        do {
            if case .aspect = target { try limits.check(output: plan.outputSize) }
            try limits.check(output: plan.outputSize, from: plan.crop.size)
            try limits.check(frames: animation.frames, output: plan.outputSize)
        } catch {
            // A plan alone holds no frame: it describes the still crop instead of failing.
            if limits.overlongAnimations == .firstFrame || !job.wantsResult {
                job.animation = nil
                return
            }
            throw error.naming(image.name)
        }
        job.plan = plan
    }
}
