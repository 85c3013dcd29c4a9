import ArgumentParser
import Tiltboard
import TiltboardCommands
import TiltboardDrivers
import TiltboardLinux

// A fuzzing build (Tests/fuzz/run-fuzz.sh) takes its entry point from libFuzzer instead.
#if !TILTBOARD_FUZZ
@main
#endif
struct TiltboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiltboard",
        abstract: "Turn a Raspberry Pi with an \(ChipRegistry.partNames("or")) and a vibration motor into a calibrated tilt controller with haptic feedback.",
        discussion: """
        Without --board, commands use the built-in simulated MPU-6050 board, so everything can be tried without hardware.

        Exit codes: 0 ok, 64 usage, 65 invalid board or profile file, 69 device unavailable, 73 cannot create an output file, 74 I/O error, 75 calibration gave up (board never still, poor fit), 77 permission denied (doctor: 0, 69 or 77 as its first failure dictates).
        """,
        version: TiltboardVersion.string,
        subcommands: [ProbeCommand.self, ReadCommand.self, CalibrateCommand.self, ProfileCommand.self,
                      HapticsCommand.self, ShakeCommand.self, RunCommand.self, ServeCommand.self, MonitorCommand.self,
                      RecordCommand.self, BenchCommand.self, DoctorCommand.self,
                      GamepadCommand.self]
    )

    static func main() {
        // Before anything opens a file, so no file can take the number of a closed one.
        StandardDescriptors.reopenClosed()
        SignalWatcher.shared.setDeadlineNote(stopDeadlineNote)
        runMapped(self)
    }
}
