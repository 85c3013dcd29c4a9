import ArgumentParser
import Tiltboard

/// `--give-up-after`, and the notes the tilt loop gives while it rides out a failing bus.
struct BusOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Exit (74) once the sensor has given no sample for this long; until then the loop retries, keeping its schedule with the motor off.", valueName: "s"))
    var giveUpAfter: Double = BusRecoverySettings().giveUpAfterSeconds

    func validate() throws {
        guard giveUpAfter > 0 && giveUpAfter <= 86_400 else {
            throw ValidationError("--give-up-after must be more than 0 and at most 86400 s, got \(giveUpAfter)")
        }
    }

    /// The loop's limit.
    func configure(_ configuration: inout TiltLoop.Configuration) {
        configuration.recovery.giveUpAfterSeconds = giveUpAfter
    }

    /// Notes each loss and return on stderr: `sensor lost at 1.00 s, motor off: …` and
    /// `sensor back at 1.52 s (reconfigured)`.
    var notes: LoopObserver { notes(label: nil) }

    /// `notes`, each line starting `LABEL: ` when there is a label (a player of several).
    func notes(label: String?) -> LoopObserver {
        let prefix = label.map { "\($0): " } ?? ""
        let limit = decimal(giveUpAfter, giveUpAfter == giveUpAfter.rounded() ? 0 : 1)
        return LoopObserver(event: { event in
            switch event {
            case let .sensor(.lost(t, error)):
                Console.note(prefix + "sensor lost at \(decimal(t, 2)) s, motor off, retrying for up to \(limit) s: \(Advice.message(for: error))", priority: .warning)
            case let .sensor(.back(t, reconfigured)):
                Console.note(prefix + "sensor back at \(decimal(t, 2)) s" + (reconfigured ? " (reconfigured)" : ""))
            case .wake:
                break
            }
        })
    }
}
