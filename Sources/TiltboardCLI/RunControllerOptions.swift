import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardCore

/// `--model`, `--bounce`, `--restitution`, `--dead-zone`, `--response`: how tilt moves the marker.
struct RunControllerOptions: ParsableArguments {
    enum ModelName: String, ExpressibleByArgument, CaseIterable {
        case damped, integrating
    }

    @Option(help: ArgumentHelp("Motion model: damped (velocity follows tilt, like a cursor) or integrating (a rolling ball).",
                               valueName: "damped|integrating"))
    var model: ModelName = .damped

    @Flag(help: "Bounce off the edges of the area instead of stopping there.")
    var bounce = false

    @Option(help: ArgumentHelp("Share of speed kept on a bounce, 0…1 (with --bounce).", valueName: "r"))
    var restitution = 0.5

    @Option(help: ArgumentHelp("Dead zone around the neutral pose, degrees of tilt.", valueName: "deg"))
    var deadZone = 0.0

    @Option(help: ArgumentHelp("Response exponent: 1 is linear, larger gives finer control near neutral.", valueName: "exp"))
    var response = 1.0

    /// The controller settings these options describe.
    var settings: TiltControllerSettings {
        TiltControllerSettings(model: model == .damped ? .damped() : .integrating(),
                               boundary: bounce ? .bounce(restitution: restitution) : .edgeStop,
                               deadZoneDeg: deadZone, responseExponent: response)
    }

    func validate() throws {
        guard deadZone >= 0 && deadZone < 90 else { throw ValidationError("--dead-zone must be between 0 and 90 degrees, got \(deadZone)") }
        guard response > 0 && response <= 10 else { throw ValidationError("--response must be above 0 and at most 10, got \(response)") }
        do { try settings.validate() } catch { throw ValidationError(describe(error)) }
    }
}
