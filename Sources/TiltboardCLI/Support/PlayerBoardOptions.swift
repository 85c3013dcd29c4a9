import ArgumentParser
import Tiltboard

/// `--board` (once per player), `--profile` (once per board), `--ignore-profile`: for the
/// commands that run several boards together (`run`, `gamepad`). With one board or none they
/// mean what `BoardOptions` means.
struct PlayerBoardOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Board file (JSON, see Boards/); give it once per player to run several boards together, in player order.",
                                            discussion: "Omit it to use the built-in simulated MPU-6050 board.",
                                            valueName: "file"))
    var board: [String] = []

    @Option(name: .long, help: ArgumentHelp("Calibration profile (default: $XDG_CONFIG_HOME/tiltboard/profiles/<board>.json; $STATE_DIRECTORY/profiles/<board>.json in a systemd service); with several boards, once per --board in the same order.",
                                            valueName: "path"))
    var profile: [String] = []

    @Flag(name: .long, help: "Do not apply the calibration profile.")
    var ignoreProfile = false

    func validate() throws {
        if board.count > 1, !profile.isEmpty, profile.count != board.count {
            throw ValidationError("--profile must be given once per --board, in the same order, or not at all: \(board.count) boards, \(profile.count) profiles")
        }
        if board.count > Self.maxPlayers { throw ValidationError("at most \(Self.maxPlayers) boards run together, got \(board.count)") }
    }

    /// Most boards one loop runs.
    static let maxPlayers = 8

    /// True with more than one `--board`.
    var several: Bool { board.count > 1 }

    /// The options of one board: player `index` (0 for the first) of several, or with one board
    /// (or none) the last `--board` and `--profile` given.
    func options(player index: Int? = nil) -> BoardOptions {
        var options = BoardOptions()
        options.board = index.map { board[$0] } ?? board.last
        options.profile = index.map { profile.isEmpty ? nil : profile[$0] } ?? profile.last
        options.ignoreProfile = ignoreProfile
        return options
    }
}
