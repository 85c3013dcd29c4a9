import Tiltboard
import TiltboardCore
import TiltboardLinux

/// A command whose results go to standard output.
protocol WritesStandardOutput {
    /// False when, with these options, nothing that matters is printed there.
    var needsStandardOutput: Bool { get }
}

extension WritesStandardOutput {
    var needsStandardOutput: Bool { true }
}

extension ProbeCommand: WritesStandardOutput {}
extension ReadCommand: WritesStandardOutput {}
extension ProfileCommand.Show: WritesStandardOutput {}
extension ShakeCommand: WritesStandardOutput {}
extension BenchCommand: WritesStandardOutput {}
extension RunCommand: WritesStandardOutput {
    /// With --udp and no --json the datagrams are the output; the status line is only a view.
    var needsStandardOutput: Bool { job.json || job.udp == nil }
}

/// Fails with 74 before any work when `command` prints its results on standard output and that
/// was closed when the program started: they would go to /dev/null, where `main` put it.
func requireStandardOutput(for command: Any) throws {
    guard let command = command as? WritesStandardOutput, command.needsStandardOutput,
          StandardDescriptors.closedAtStart.contains(1) else { return }
    throw CLIError(message: "standard output was closed when tiltboard started (>&-), so the output would be lost: redirect it to a file or to /dev/null instead of closing it",
                   category: .io)
}
