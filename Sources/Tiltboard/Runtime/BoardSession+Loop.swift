import TiltboardCore
import TiltboardDrivers

extension BoardSession {
    /// The pipeline this board's samples go through: its mount, the profile's calibration and
    /// neutral pose, the estimator suited to the chip, `controller`, and the shake detector with the
    /// board's settings, the profile's sensitivity and `shakeOverrides` over both
    /// (`shakeSettings(for:overrides:)`).
    public func makePipeline(controller: TiltControllerSettings = TiltControllerSettings(),
                             shakeOverrides: BoardDescription.ShakeSection = .init()) -> TiltPipeline {
        TiltPipeline(tracker: makeTiltTracker(controller: controller),
                     shake: ShakeDetector(settings: shakeSettings(for: profile, overrides: shakeOverrides)))
    }

    /// The loop over this board's sensor, clock and pipeline as `configuration` says, playing the
    /// board's shake effect on `haptics`; unless the configuration says otherwise, a lost sensor
    /// is restored with its profile's chip offsets (`restoreSensor`). `controller` and
    /// `shakeOverrides` shape its pipeline (`makePipeline`).
    public func makeLoop(_ configuration: TiltLoop.Configuration, haptics: HapticEngine? = nil,
                         controller: TiltControllerSettings = TiltControllerSettings(),
                         shakeOverrides: BoardDescription.ShakeSection = .init()) -> TiltLoop {
        var configuration = configuration
        if configuration.restoreSensor == nil { configuration.restoreSensor = { try self.restoreSensor() } }
        return TiltLoop(sensor: sensor, clock: clock, pipeline: makePipeline(controller: controller, shakeOverrides: shakeOverrides),
                        configuration: configuration, haptics: haptics,
                        shakeEffect: board.motor?.shakeEffect ?? .pulse(ms: 150))
    }

    /// The loop at `rateHz` (default: the rate the sensor was configured to) with the default
    /// configuration otherwise.
    public func makeLoop(rateHz: Double? = nil, haptics: HapticEngine? = nil,
                         controller: TiltControllerSettings = TiltControllerSettings()) -> TiltLoop {
        makeLoop(TiltLoop.Configuration(rateHz: rateHz ?? sensor.actualRateHz), haptics: haptics, controller: controller)
    }

    /// The GPIO input wired to the sensor's INT pin, for `TiltLoop.Configuration.wakeOnMotion`; a board
    /// without an `interrupt` section throws a `BoardFileError` saying what to add.
    package func wakeLine() throws -> GPIOInputLine {
        guard let line = try openInterruptLine() else {
            throw BoardFileError(file: board.source, key: "interrupt", problem: .noInterruptLine)
        }
        return line
    }
}
