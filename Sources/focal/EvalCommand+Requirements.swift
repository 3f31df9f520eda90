import Focal
import Foundation
import FocalTools

extension EvalCommand {
    /// The exit code of `focal eval --require` when a requirement is not met: apart from 1 (an
    /// image failed) and 64 (a usage mistake), so that a script can tell a quality drop from both.
    static let unmetRequirementStatus: Int32 = 2

    /// Prints one line per requirement, met or not with the figure's value: `required    NAME OP
    /// BOUND: met (VALUE)` or, under `--json`, `{"requirement", "met", "value"}`. A figure this run
    /// does not have (a kind's precision with no exhaustive label) fails its requirement.
    /// - Returns: Whether every requirement is met.
    static func report(_ requirements: [EvalRequirement], on figures: EvalFigures, json: Bool) -> Bool {
        var allMet = true
        for requirement in requirements {
            let value = figures.value(requirement.name)
            let met = value.map(requirement.isMet(by:)) ?? false
            allMet = allMet && met
            if json {
                Terminal.out(DocumentEncoding.text(JSONLine.Requirement(requirement: requirement.description, met: met, value: value)))
            } else {
                let shown = value.map(EvalRequirement.text(_:)) ?? "no value in this run"
                Terminal.out("required    \(requirement): \(met ? "met" : "NOT MET") (\(shown))")
            }
        }
        return allMet
    }
}
