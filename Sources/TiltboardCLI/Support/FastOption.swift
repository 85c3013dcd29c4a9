import ArgumentParser

/// `--fast`: a simulated board on a virtual clock, for replaying a recorded trace (or a script)
/// as fast as the machine allows, with every line written and the same output on every run.
struct FastOption: ParsableArguments {
    static let help = "Run the simulated board on a virtual clock, as fast as the machine allows: every sample taken, every line written, the same output on every run (to replay a trace; refused on a real board)."

    @Flag(help: ArgumentHelp(FastOption.help))
    var fast = false
}
