#if canImport(Glibc)
import Glibc
#endif
import Tiltboard
import TiltboardCore
import TiltboardLinux

/// The words for the `Tiltboard` library's errors: board files, strict JSON, profiles, calibration, the sensor and the motor log.
extension ErrorWording {
    /// The sentence for an error of the `Tiltboard` library, nil for an error of another library.
    static func tiltboard(_ error: Error) -> String? {
        switch error {
        case let error as BoardFileError: return boardFile(error)
        case let error as ProfileError: return "profile \(shownPath(error.path)): \(profileDetail(error))"
        case is CalibrationStopped: return "calibration interrupted; the profile was not changed"
        case let error as FaceTimeout:
            let faces = error.remaining.map(\.rawValue).joined(separator: ", ")
            let why = error.lastFailure.map { " (last problem: \($0))" } ?? ""
            return "no new face captured within \(Int(error.seconds.rounded())) s\(why); still to do: \(faces). "
                + "Lay the board squarely with one of those faces up and keep it still"
        case let error as CalibrationProcedureError:
            return "the fitted calibration cannot be stored: \(profileValue(error.problem)); capture the six faces again"
        case let error as SensorLostError:
            let seconds = error.seconds
            let s = seconds == seconds.rounded() && seconds < 1e9 ? String(Int(seconds)) : String(seconds)
            return "no sample from the \(error.part) at \(error.address.hex) on \(error.bus) for \(s) s, giving up; last error: \(error.lastError.map { describe($0) } ?? "none")"
        case let error as MotorLogError: return motorLog(error)
        case let error as LoopGroupError: return loopGroup(error)
        default: return nil
        }
    }

    /// Boards that cannot run in one loop, and what to change.
    package static func loopGroup(_ error: LoopGroupError) -> String {
        switch error.kind {
        case .noLoops: return "no board to run"
        case let .differentRates(rates):
            let list = rates.enumerated().map { "player \($0.offset + 1) at \(rateText($0.element)) Hz" }.joined(separator: ", ")
            return "boards run together sample at one rate, but \(list): give --rate, or the same rateHz in their board files"
        case let .wakeOnMotion(player):
            return "player \(player)'s board would sleep on its interrupt pin, which one schedule for several boards cannot do: run it alone for waking on motion"
        }
    }

    private static func rateText(_ hz: Double) -> String { hz == hz.rounded() && abs(hz) < 1e9 ? String(Int(hz)) : String(hz) }

    /// A board file that cannot be used: `board file PATH: KEY: what is wrong (what is allowed)`.
    package static func boardFile(_ error: BoardFileError) -> String {
        let what = boardFileProblem(error.problem)
        let shown = shownPath(error.file)
        return error.key.isEmpty ? "board file \(shown): \(what)" : "board file \(shown): \(error.key): \(what)"
    }

    /// What is wrong with a board file or one of its keys.
    package static func boardFileProblem(_ problem: BoardFileError.Problem) -> String {
        switch problem {
        case let .unreadable(code):
            let hint = code == EACCES || code == EPERM ? ": check the file's permissions"
                : code == ELOOP ? ": a symlink loop (or more than 40 links in a row): point the link at the board file itself" : ""
            return "cannot read it: \(reason(code))\(hint)"
        case let .notRegularFile(kind): return "\(fileType(kind)), not a regular file: give the path of a board file (or a symlink to one)"
        case let .tooLarge(size, limit): return "\(tooLarge(size: size, limit: limit)): not a board file"
        case .noSuchFile: return "no such file"
        case let .invalidJSON(detail, line?, column?): return "not valid JSON: \(detail) at line \(line), column \(column)"
        case let .invalidJSON(detail, _, _): return "not valid JSON: \(detail)"
        case let .notStrictJSON(kind): return strictJSON(kind)
        case let .topLevelNotObject(found): return "the top level must be an object { … }, found \(written(found))"
        case let .unknownKey(section, allowed):
            return "unknown key (allowed\(section.isEmpty ? "" : " in \(section)"): \(allowed.joined(separator: ", ")))"
        case let .missing(required): return "missing (\(boardFileRequired(required)))"
        case let .notAllowed(value, allowed): return "\(written(value)) is not allowed (\(boardFileAllowed(allowed)))"
        case .simulationNeedsSimulatedBus: return "only allowed when sensor.bus is \"simulated\" (remove it, or set the bus)"
        case let .noGyroscope(part): return "the \(part) has no gyro (remove the key)"
        case let .badShakeEffect(error): return describe(error)
        case let .keyAndOlderKey(older): return "give it or the older \(older), not both"
        case let .notARotation(value):
            return "\(written(value)) is not a rotation: rows must be orthonormal unit vectors (use a signed permutation such as [[0,1,0],[-1,0,0],[0,0,1]])"
        case let .mirrorImage(value): return "\(written(value)) is a mirror image (determinant -1), not a rotation: flip the sign of one more row"
        case .scriptAndTrace: return "give either script or trace, not both"
        case let .tooManyFaults(count, limit): return "\(count) faults; at most \(limit)"
        case .resetTakesNoTime: return "a reset takes no time (remove the key)"
        case .retiredMinDuration:
            return "no longer applies: a single burst no longer starts a shake, only a back-and-forth does; "
                + "remove it and set minReversals (default 2: three alternating half-cycles) instead"
        case let .namedFileMissing(path): return "\(shownPath(path)): no such file"
        case let .namedFileUnreadable(path, code):
            let hint: String
            switch code {
            case ELOOP: hint = ": a symlink loop (or more than 40 links in a row)"
            case ENAMETOOLONG: hint = ": the name (or one of its folders' names) is too long"
            case EACCES, EPERM: hint = ": check the file's permissions"
            default: hint = ""
            }
            return "cannot read \(shownPath(path)): \(reason(code))\(hint)"
        case let .namedFileNotRegular(path, kind): return "\(shownPath(path)) is \(fileType(kind)), not a regular file"
        case let .namedFileTooLarge(path, size, limit): return "\(shownPath(path)) is \(tooLarge(size: size, limit: limit))"
        case let .traceNotText(path): return "\(shownPath(path)): not UTF-8 text; a trace is CSV lines of t,ax,ay,az[,gx,gy,gz]"
        case let .badContents(path, underlying): return "\(shownPath(path)): \(describe(underlying.error))"
        case let .noSuchScript(path, builtIn):
            return "\"\(shownPath(path))\" is neither a built-in script (\(builtIn.joined(separator: ", "))) nor a readable file"
        case .noInterruptLine:
            return "missing: waking on motion needs the sensor's INT pin wired to a GPIO input; add \"interrupt\": {\"chip\": …, \"line\": …} "
                + "(see Boards/README.md; Boards/simulated-wake.json is a simulated board wired so)"
        }
    }

    /// A motor log that cannot be opened for appending, with the kernel's reason and what to do.
    package static func motorLog(_ error: MotorLogError) -> String {
        let hint: String
        switch error.errno {
        case EISDIR: hint = ": a folder, not a file: name a file (in it, or elsewhere)"
        case ENXIO: hint = ": a FIFO nobody reads: start its reader first"
        case ENODEV: hint = ": a block device, never appended to: name a file"
        case EACCES, EPERM: hint = ": check the permissions of the file and its folder"
        case ENOENT: hint = ": its folder does not exist"
        default: hint = ""
        }
        return "motor log \(shownPath(error.path)) (the board file's simulation.motorLog): cannot open it for appending: \(reason(error.errno))\(hint)"
    }

    /// What is wrong with a profile file.
    package static func profileDetail(_ error: ProfileError) -> String {
        switch error.problem {
        case let .unreadable(code):
            let hint: String
            switch code {
            case EACCES, EPERM: hint = ": check the file's permissions"
            case ELOOP: hint = ": a symlink loop (or more than 40 links in a row): point the link at the profile itself"
            case ENAMETOOLONG: hint = ": the name (or one of its folders' names) is too long"
            case ENOTDIR: hint = ": a part of the path is not a folder"
            default: hint = ""
            }
            return "cannot read it: \(reason(code))\(hint)"
        case let .notRegularFile(kind): return "\(fileType(kind)), not a regular file"
        case let .tooLarge(size, limit): return "\(tooLarge(size: size, limit: limit)): not a profile"
        case let .otherBoard(mismatch): return "belongs to another board: \(profileMismatch(mismatch))"
        case .empty: return "the file is empty"
        case .invalidJSON: return "not valid JSON, truncated or corrupt"
        case let .notStrictJSON(key, problem): return strictJSON(key: key, problem)
        case .topLevelNotObject: return "not a profile: the top level is not an object"
        case .noSchemaVersion: return "schemaVersion is missing or not an integer"
        case let .newerVersion(found, readsUpTo):
            return "written by a newer tiltboard (schema \(found); this one reads up to \(readsUpTo)): upgrade tiltboard, or recalibrate with this one"
        case let .missingKey(key): return "\(key) is missing"
        case let .wrongType(key, detail): return "\(key) has the wrong type (\(detail))"
        case let .badValue(key, detail): return "\(key): \(detail)"
        case let .badShape(key, problem): return "\(key): \(decodedValue(problem))"
        case .undecodable: return "cannot be decoded"
        case let .notAByte(key, text): return "\(key): \"\(text)\" is not a byte like \"0x68\""
        case let .unknownKey(key, allowed): return "unknown key \(key) (allowed: \(allowed.joined(separator: ", ")))"
        case let .invalidValue(problem): return profileValue(problem)
        case let .refusingToSave(problem): return "refusing to save: \(profileValue(problem))"
        }
    }

    /// A profile value out of its range: the key, the value and what it must be.
    package static func profileValue(_ problem: ProfileValueProblem) -> String {
        switch problem {
        case let .schemaVersion(v): return "schemaVersion \(v) is not valid (must be 1 or more)"
        case .boardNameEmpty: return "board.name is empty"
        case .boardBusEmpty: return "board.bus is empty"
        case let .boardAddress(address, part): return "board.address \(address.hex(uppercase: true)) is not an address of the \(part)"
        case let .createdAt(text): return "createdAt \"\(text)\" is not an ISO 8601 time like 2026-11-21T08:30:00Z"
        case let .temperatureC(t): return "temperatureC \(t) is not a plausible temperature"
        case let .sampleCount(n): return "sampleCount \(n) must not be negative"
        case let .gyroBiasDps(g): return "gyroBiasDps \(g) must be finite and within ±500 °/s"
        case let .noiseMg(v): return "noiseMg \(v) must be finite and not negative"
        case let .neutralRotation(r): return "neutral.rotation (w \(r.w), x \(r.x), y \(r.y), z \(r.z)) is not a unit quaternion"
        case let .neutralMeanRawG(v): return "neutral.meanRawG \(v) is not a plausible gravity reading"
        case let .neutralTiltDeg(d): return "neutral.tiltDeg \(d) must be 0…180"
        case let .sourceSensorMeanG(v): return "neutralSource.sensorMeanG \(v) is not a plausible gravity reading"
        case let .sourceMaxTiltDeg(d): return "neutralSource.maxTiltDeg \(d) must be 0…90"
        case let .shakeLevel(level, levels): return "shake.level \"\(level)\" is not a sensitivity: use one of \(levels.joined(separator: ", "))"
        case let .shakeThresholdG(v): return "shake.thresholdG \(v) must be more than 0 and at most 16 g"
        case let .shakeMinReversals(v): return "shake.minReversals \(v) must be an integer from 1 to 20"
        case let .shakeMinFraction(v): return "shake.minFraction \(v) must be a fraction from 0 to 1"
        case let .shakeCooldownMs(v): return "shake.cooldownMs \(v) must be 0 to 60000 ms"
        case let .sensorOffsetG(v): return "sensor.offsetG \(v) must be finite and within ±2 g"
        case let .sensorScale(v): return "sensor.scale \(v) must be 0.5…2 on every axis (a zero or wild scale would wipe out the signal)"
        case .sensorCrossAxis: return "sensor.crossAxis is not a usable correction matrix (not finite or nearly singular)"
        case let .sensorGyroBiasDps(g): return "sensor.gyroBiasDps \(g) must be finite and within ±500 °/s"
        case let .sensorResidualMg(v): return "sensor.residualMg \(v) must be finite and not negative"
        }
    }

    /// How a profile's board differs from the board in use.
    package static func profileMismatch(_ mismatch: ProfileBoardMismatch) -> String {
        switch mismatch {
        case let .name(profile, board): return "it is for board \"\(profile)\", not \"\(board)\""
        case let .chip(profile, board): return "it is for an \(profile), this board has an \(board)"
        case let .bus(profile, board): return "it is for bus \(profile), this board uses \(board)"
        case let .address(profile, board): return "it is for address \(profile.hex(uppercase: true)), this board uses \(board.hex(uppercase: true))"
        case let .chipID(profile, board): return "the chip ID is \(profile.hex(uppercase: true)), this board's chip answers \(board.hex(uppercase: true))"
        }
    }

    /// What to give for a required key.
    static func boardFileRequired(_ required: BoardFileError.Problem.Required) -> String {
        switch required {
        case .name: return "give the board a name"
        case .sensor: return "give at least chip and bus"
        case let .chip(names): return "use " + choices(names.map(quoted))
        case .bus: return i2cBusChoices
        case .gpioChip: return "a chip label like \"pinctrl-bcm2711\", a name like \"gpiochip0\" or a path"
        case .gpioLine: return "a line offset like 17 or a line name like \"GPIO17\""
        case let .faultKind(kinds): return "use one of \(kinds.map(quoted).joined(separator: ", "))"
        case .faultStart: return "seconds since the board opened"
        case let .faultLength(kind): return "how long the \(kind) lasts, in seconds"
        }
    }

    /// What a key allows.
    static func boardFileAllowed(_ allowed: BoardFileError.Problem.Allowed) -> String {
        switch allowed {
        case .object: return "use an object { … }"
        case .string: return "use a string in quotes"
        case .nonEmptyString: return "use a non-empty string"
        case .bool: return "use true or false"
        case let .chip(names): return "use " + choices(names.map(quoted))
        case .bus: return i2cBusChoices
        case let .address(part, addresses):
            return "the \(part) answers at \(addresses.map { $0.hex(uppercase: true) }.joined(separator: " or "))"
        case let .oneOf(values): return "use " + choices(values.map(String.init))
        case let .rateHz(part, low, high): return "the \(part) runs at \(number(low)) to \(number(high)) Hz"
        case .line: return "use a line offset like 17 or a line name like \"GPIO17\""
        case .mountShape: return "use 3 rows of 3 numbers, e.g. [[1,0,0],[0,1,0],[0,0,1]]"
        case .script: return "use a built-in script name such as \"flat\" or a path to a script file"
        case .tracePath: return "use a path to a CSV trace"
        case .filePath: return "use a file path"
        case .seed: return "use an integer from 0 to 2^53"
        case .byte: return "use a byte such as \"0x68\" or \"0x70\""
        case let .vector(quantity, limit):
            let within = "each within ±\(number(limit))"
            switch quantity {
            case .milliG: return "use [x, y, z] in mg, \(within)"
            case .fraction: return "use [x, y, z] fractions, \(within) (0.02 = +2 %)"
            case .degreesPerSecond: return "use [x, y, z] in °/s, \(within)"
            case .degreesPerSecondPerCelsius: return "use [x, y, z] in °/s per °C, \(within)"
            case .milliGPerCelsius: return "use [x, y, z] in mg per °C, \(within)"
            }
        case let .faultList(kinds):
            return "use a list of {\"at\": seconds, \"kind\": \(kinds.map(quoted).joined(separator: ", ")), \"seconds\": duration}"
        case let .faultKind(kinds): return "use one of \(kinds.map(quoted).joined(separator: ", "))"
        case let .part(keys): return "use \"typical\", \"worst\" or an object with \(keys.joined(separator: ", "))"
        case let .span(low, high, unit): return "use \(number(low)) to \(number(high)) \(unit == .milliseconds ? "ms" : "seconds")"
        case let .secondsSinceOpen(low, high): return "use \(number(low)) to \(number(high)) seconds since the board opened"
        case let .positiveSeconds(high): return "use more than 0 and at most \(number(high)) seconds"
        case let .positiveG(high): return "use more than 0 and at most \(number(high)) g"
        case .chance: return "use a chance from 0 to 1"
        case .fraction: return "use a fraction from 0 to 1"
        case let .integerRange(low, high): return "use an integer from \(low) to \(high)"
        case let .celsius(low, high): return "use °C from \(number(low)) to \(number(high))"
        case let .seconds(low, high): return "use seconds from \(number(low)) to \(number(high))"
        }
    }

    /// JSON that parses but is not strict: a trailing comma or a key twice, with what to do.
    package static func strictJSON(_ problem: StrictJSONProblem) -> String {
        switch problem {
        case let .commaBefore(closer, line, column): return "a comma before \"\(closer)\" at line \(line), column \(column): remove it"
        case let .keyTwice(line, column): return "appears twice in one object (again at line \(line), column \(column)): keep one"
        }
    }

    /// `KEY: what is wrong` for strict JSON's problem at `key` (just the words at the top level).
    package static func strictJSON(key: String, _ problem: StrictJSONProblem) -> String {
        key.isEmpty ? strictJSON(problem) : "\(key): \(strictJSON(problem))"
    }

    /// The I²C buses a board file may name.
    static let i2cBusChoices = "use \"/dev/i2c-N\", e.g. \"/dev/i2c-1\", or \"simulated\""

    /// `a file of N bytes, more than the L bytes it may have`.
    static func tooLarge(size: Int64, limit: Int) -> String { "a file of \(size) bytes, more than the \(limit) bytes it may have" }

    /// A value as the file writes it, an object as `an object { … }`, cut after `WrittenValue.quoteLimit` characters.
    package static func written(_ value: WrittenValue) -> String {
        let text = value.parts.map { part -> String in
            switch part {
            case let .text(text): return text
            case .object: return "an object { … }"
            }
        }.joined()
        return text.count > WrittenValue.quoteLimit ? text.prefix(WrittenValue.quoteLimit) + "…" : text
    }

    /// `"text"`.
    static func quoted(_ text: String) -> String { "\"\(text)\"" }

    /// `a, b or c`.
    static func choices(_ items: [String]) -> String {
        items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " or " + items.last!
    }

    /// A number as a board file writes it: an integer without a fraction, else Swift's shortest form.
    static func number(_ d: Double) -> String {
        if d == d.rounded() && Swift.abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }
}
