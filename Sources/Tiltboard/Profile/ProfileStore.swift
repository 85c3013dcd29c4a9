import Foundation
import TiltboardCore
import TiltboardLinux

/// Where calibration profiles live and how they are read and written.
///
/// Loading is all or nothing: a profile that cannot be trusted throws `ProfileError` and is
/// never partly applied. Saving is crash-safe (`AtomicFile`), keeping the previous file as `.bak`.
public enum ProfileStore {
    /// `$STATE_DIRECTORY/profiles/<slug>.json` when systemd runs the service (its `StateDirectory=`),
    /// else `$XDG_CONFIG_HOME/tiltboard/profiles/<slug>.json`, or `~/.config/tiltboard/profiles/<slug>.json`.
    public static func defaultPath(boardName: String,
                                   environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        // systemd passes one absolute path per StateDirectory= entry, separated by colons.
        if let state = usableFolder(environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)) {
            return state + "/profiles/" + slug(boardName) + ".json"
        }
        let base: String
        if let xdg = usableFolder(environment["XDG_CONFIG_HOME"]) {
            base = xdg
        } else {
            // The XDG spec says to ignore a relative XDG_CONFIG_HOME. A relative (or empty) HOME is
            // ignored too, for the user's home in the password database: a profile must not land
            // wherever the command happened to start.
            let home = usableFolder(environment["HOME"])
                ?? NSHomeDirectoryForUser(NSUserName()).flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/"
            base = (home == "/" ? "" : home) + "/.config"
        }
        return base + "/tiltboard/profiles/" + slug(boardName) + ".json"
    }

    /// `value` when it can name a folder to keep profiles in: an absolute path the kernel can
    /// take (no name over NAME_MAX, 255 bytes, and room left below PATH_MAX, 4096, for the
    /// profile's own path); nil for anything else, which is then ignored as if unset.
    static func usableFolder(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/"), value.utf8.count <= 3800,
              !value.utf8.split(separator: UInt8(ascii: "/")).contains(where: { $0.count > 255 }) else { return nil }
        return value
    }

    /// The file-name form of a board name: lowercase ASCII letters and digits, each run of other
    /// characters → `-`. A name with characters beyond ASCII (Cyrillic, Japanese, emoji, …) also
    /// gets a stable hash of the whole name, so two such names never share a profile.
    package static func slug(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: { !$0.isASCII }) else { return asciiSlug(name) }
        // Canonically composed, so the same name typed either way is the same board.
        let composed = name.precomposedStringWithCanonicalMapping
        let readable = asciiSlug(composed)
        // FNV-1a, 32 bits.
        var hash: UInt32 = 0x811c_9dc5
        for byte in composed.utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return readable + "-" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    private static func asciiSlug(_ name: String) -> String {
        var out = ""
        for scalar in name.lowercased().unicodeScalars {
            if scalar.isASCII && (("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)) {
                out.unicodeScalars.append(scalar)
            } else if !out.isEmpty && !out.hasSuffix("-") {
                out += "-"
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "board" : out
    }

    /// The largest profile read: far above any this program writes (about 2 kB).
    package static let maxProfileBytes = 1 << 20

    /// The profile at `path`, or nil when there is no file there.
    ///
    /// A truncated, corrupt, newer-schema, invalid or (with `expectedBoard`) other-board profile throws.
    public static func load(path: String, expectedBoard: ProfileBoardIdentity?) throws -> CalibrationProfile? {
        let bytes: [UInt8]
        do {
            guard let b = try AtomicFile.read(path: path, maxBytes: maxProfileBytes) else { return nil }
            bytes = b
        } catch let error as AtomicFileError {
            let kind: ProfileError.Kind
            switch FileProblem(errno: error.errno) {
            case .permissionDenied: kind = .permissionDenied
            case .notRegular: kind = .notRegularFile
            case .readFailed: kind = .readFailed
            case .missing, .tooLarge: kind = .unreadable
            }
            throw ProfileError(path: path, kind: kind, problem: .unreadable(errno: error.errno))
        } catch let error as NotARegularFile {
            throw ProfileError(path: path, kind: .notRegularFile, problem: .notRegularFile(kind: error.kind), remedy: .nameAProfileFile)
        } catch let error as FileTooLarge {
            throw ProfileError(path: path, kind: .tooLarge, problem: .tooLarge(size: error.size, limit: error.limit), remedy: .nameAProfileFile)
        }
        let profile = try decode(bytes, path: path)
        if let expected = expectedBoard, let why = profile.board.mismatch(with: expected) {
            throw ProfileError(path: path, kind: .otherBoard, problem: .otherBoard(why), remedy: .calibrateThisBoard)
        }
        return profile
    }

    /// Decodes and checks profile file contents; `path` names the file in messages.
    package static func decode(_ bytes: [UInt8], path: String) throws -> CalibrationProfile {
        if bytes.isEmpty {
            throw ProfileError(path: path, kind: .corrupt, problem: .empty, remedy: .recalibrateOrRestore)
        }
        let data = Data(bytes)
        // Read the version alone first, so a newer file is reported as such rather than as corrupt.
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ProfileError(path: path, kind: .corrupt, problem: .invalidJSON, remedy: .recalibrateOrRestore)
        }
        // What JSONSerialization lets through: a key twice (which one wins is undefined) and a
        // comma before `}` or `]` (RFC 8259 §4, §5).
        if let problem = StrictJSON.problem(bytes) {
            throw ProfileError(path: path, kind: .corrupt, problem: .notStrictJSON(key: problem.key, problem.kind), remedy: .recalibrateOrRestore)
        }
        guard let object = root as? [String: Any] else {
            throw ProfileError(path: path, kind: .corrupt, problem: .topLevelNotObject, remedy: .recalibrateOrRestore)
        }
        // NSNumber also carries booleans; the Objective-C type code "c" marks them.
        guard let number = object["schemaVersion"] as? NSNumber, String(cString: number.objCType) != "c",
              let version = object["schemaVersion"] as? Int else {
            throw ProfileError(path: path, kind: .corrupt, problem: .noSchemaVersion, remedy: .recalibrateOrRestore)
        }
        if version > CalibrationProfile.currentSchemaVersion {
            throw ProfileError(path: path, kind: .newerVersion,
                               problem: .newerVersion(found: version, readsUpTo: CalibrationProfile.currentSchemaVersion))
        }
        let profile: CalibrationProfile
        do {
            profile = try JSONDecoder().decode(CalibrationProfile.self, from: data)
        } catch let error as DecodingError {
            throw ProfileError(path: path, kind: .corrupt, problem: problem(error), remedy: .recalibrateOrRestore)
        } catch let error as ProfileNotAByte {
            throw ProfileError(path: path, kind: .corrupt, problem: .notAByte(key: error.key, text: error.text), remedy: .recalibrateOrRestore)
        }
        try rejectUnknownKeys(object, path: path)
        if let problem = profile.problem {
            throw ProfileError(path: path, kind: .invalid, problem: .invalidValue(problem), remedy: .recalibrateOrRestore)
        }
        return profile
    }

    /// Checks `profile` and writes it atomically, keeping the previous file as `<path>.bak`.
    /// The whole file is replaced: writers of one part use `save(_:path:writer:)`.
    public static func save(_ profile: CalibrationProfile, path: String) throws {
        if let problem = profile.problem {
            throw ProfileError(path: path, kind: .invalid, problem: .refusingToSave(problem))
        }
        let target = try writableTarget(path)
        try naming(path, target) { try AtomicFile.write(encode(profile), to: target) }
    }

    /// Writes the sections `writer` owns from `profile` into the profile at `path`, keeping every
    /// other top-level member of the file there byte for byte, sections this version does not
    /// know included (see `ProfileSection`). With no usable profile there (none, or a corrupt one,
    /// which stays in `.bak`) the whole of `profile` is written. Atomic, with `.bak`, at the file a
    /// symlink names (the link is kept); cooperating writers of the folder take turns. Returns the
    /// profile as written.
    @discardableResult
    package static func save(_ profile: CalibrationProfile, path: String, writer: ProfileWriter) throws -> CalibrationProfile {
        try save(profile, path: path, sections: writer.sections)
    }

    /// `save(_:path:writer:)` for any set of sections.
    @discardableResult
    package static func save(_ profile: CalibrationProfile, path: String, sections: Set<ProfileSection>) throws -> CalibrationProfile {
        if let problem = profile.problem {
            throw ProfileError(path: path, kind: .invalid, problem: .refusingToSave(problem))
        }
        let target = try writableTarget(path)
        let update = try encode(profile)
        return try AtomicFile.withFolderLock(of: target) {
            var bytes = update
            var written = profile
            // The file as it is now (another program may have changed it since it was loaded).
            if let existing = try? AtomicFile.read(path: target, maxBytes: maxProfileBytes),
               (try? decode(existing, path: path)) != nil,
               let merged = splice(existing: existing, update: update, sections: sections),
               let result = try? decode(merged, path: path) {
                bytes = merged
                written = result
            }
            try naming(path, target) { try AtomicFile.write(bytes, to: target) }
            return written
        }
    }

    /// Through a symlink to the file it names, never over a FIFO or a device.
    private static func writableTarget(_ path: String) throws -> String {
        do {
            return try NotARegularFile.writableTarget(path)
        } catch let error as NotARegularFile {
            throw ProfileError(path: path, kind: .notRegularFile, problem: .notRegularFile(kind: error.kind), remedy: .nameAProfileFile)
        }
    }

    /// Fails as `save` would for a reason other than the profile itself (the folder, the file in
    /// the way), before a capture whose result would be lost.
    package static func checkWritable(path: String) throws {
        // Where a symlinked profile is written: the folder of the file it names.
        let target = try writableTarget(path)
        try naming(path, target) { try AtomicFile.checkWritable(target) }
    }

    /// A failed write of `target` (the file a symlink at `path` names) reported under `path`, the
    /// name the user gave; the failed step still names the file in the target's folder.
    private static func naming<R>(_ path: String, _ target: String, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch var error as AtomicFileError where target != path {
            error.path = path
            throw error
        }
    }

    /// The exact bytes `save` writes: pretty-printed JSON with sorted keys and a final newline.
    package static func encode(_ profile: CalibrationProfile) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(profile)) + [UInt8(ascii: "\n")]
    }

    private static let knownKeys: [String: Set<String>] = [
        "": ["schemaVersion", "board", "createdAt", "temperatureC", "sampleCount", "noiseMg", "neutral", "sensor", "gyroBiasDps", "neutralSource", "shake"],
        "shake": ProfileShake.keys,
        "board": ["name", "chip", "bus", "address", "chipID"],
        "neutral": ["rotation", "meanRawG", "tiltDeg", "clamped"],
        "neutral.rotation": ["w", "x", "y", "z"],
        "neutralSource": ["sensorMeanG", "maxTiltDeg"],
        "sensor": ["offsetG", "scale", "crossAxis", "gyroBiasDps", "residualMg", "writtenToChip"],
    ]

    // A key this version does not know inside a section it knows means the file was hand-edited
    // or written by something else; applying the rest would be a partial application.
    private static func rejectUnknownKeys(_ object: [String: Any], path: String, prefix: String = "") throws {
        guard let allowed = knownKeys[prefix] else { return }
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            let full = prefix.isEmpty ? key : "\(prefix).\(key)"
            // A section of its own that this version does not know is a newer tiltboard's: it
            // is ignored here and kept by every writer (`ProfileSection`).
            guard allowed.contains(key) || prefix.isEmpty else {
                throw ProfileError(path: path, kind: .corrupt,
                                   problem: .unknownKey(key: full.count > 80 ? String(full.prefix(79)) + "…" : full, allowed: allowed.sorted()))
            }
            if let nested = value as? [String: Any] { try rejectUnknownKeys(nested, path: path, prefix: full) }
        }
    }

    private static func problem(_ error: DecodingError) -> ProfileError.Problem {
        func dotted(_ path: [CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
                .replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case let .keyNotFound(key, context):
            return .missingKey(dotted(context.codingPath + [key]))
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return .wrongType(key: dotted(context.codingPath), detail: context.debugDescription)
        case let .dataCorrupted(context):
            let at = dotted(context.codingPath)
            if at.isEmpty { return .invalidJSON }
            if let problem = context.underlyingError as? DecodedValueProblem { return .badShape(key: at, problem) }
            return .badValue(key: at, detail: context.debugDescription)
        @unknown default:
            return .undecodable
        }
    }
}

/// A profile that must not be used; the CLI exits 65, or as `FileProblem` says for a file problem.
public struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong with the profile file.
    public enum Kind: String, Sendable, Equatable {
        /// The path leads to no file it can read (a symlink loop, a name too long, a part of
        /// the path not a folder).
        case unreadable
        /// The file or its folder may not be read or written by this user.
        case permissionDenied
        /// A folder, FIFO, socket or device (`FileProblem.notRegular`).
        case notRegularFile
        /// Larger than any profile (`FileProblem.tooLarge`).
        case tooLarge
        /// The kernel failed the read (`FileProblem.readFailed`).
        case readFailed
        /// The file is not JSON, is from a newer version, holds invalid values, or belongs to another board.
        case corrupt, newerVersion, invalid, otherBoard

        /// The file problem this is, when it is one (`FileProblem`, the one table of their exits).
        package var fileProblem: FileProblem? {
            switch self {
            case .unreadable: return .missing
            case .permissionDenied: return .permissionDenied
            case .notRegularFile: return .notRegular
            case .tooLarge: return .tooLarge
            case .readFailed: return .readFailed
            case .corrupt, .newerVersion, .invalid, .otherBoard: return nil
            }
        }
    }
    /// The profile file.
    public var path: String
    /// What went wrong.
    public var kind: Kind
    /// What is wrong, with the values that say where and what.
    public var problem: Problem
    /// What would put it right, for the program to word for its user; nil when nothing but the
    /// detail applies.
    package var remedy: Remedy?

    /// Ways out of a profile that cannot be used.
    package enum Remedy: Sendable, Equatable {
        /// Measure a new profile, or restore the backup the writer kept (`path`.bak).
        case recalibrateOrRestore
        /// Calibrate the board in use, or name that board's own profile.
        case calibrateThisBoard
        /// Name a profile file (or a symlink to one) instead of what the path names.
        case nameAProfileFile
    }

    package init(path: String, kind: Kind, problem: Problem, remedy: Remedy? = nil) {
        self.path = path; self.kind = kind; self.problem = problem; self.remedy = remedy
    }

    /// The structured form for logs: `ProfileError(kind, problem, path: …)`; the program words it.
    public var description: String { "ProfileError(\(kind), \(problem), path: \(shownPath(path)))" }

    /// What is wrong with a profile file, with its values.
    public enum Problem: Sendable, Equatable {
        /// The file could not be read; `errno` is the kernel's reason.
        case unreadable(errno: Int32)
        /// Not a regular file; `kind` is what it is (a folder, …).
        case notRegularFile(kind: FileType)
        /// Larger than any profile.
        case tooLarge(size: Int64, limit: Int)
        /// Measured on another board.
        case otherBoard(ProfileBoardMismatch)
        /// The file is empty.
        case empty
        /// Not JSON: truncated or corrupt.
        case invalidJSON
        /// JSON that is not strict at `key`: a trailing comma or a key twice.
        case notStrictJSON(key: String, StrictJSONProblem)
        /// The top level is not an object.
        case topLevelNotObject
        /// `schemaVersion` is missing or not an integer.
        case noSchemaVersion
        /// Written by a newer version: schema `found`, this one reads up to `readsUpTo`.
        case newerVersion(found: Int, readsUpTo: Int)
        /// A required key (dotted path) is missing.
        case missingKey(String)
        /// The value at `key` has the wrong type; `detail` is the decoder's report.
        case wrongType(key: String, detail: String)
        /// The value at `key` cannot be read; `detail` is the decoder's report.
        case badValue(key: String, detail: String)
        /// The value at `key` is well-formed JSON of the wrong shape (`DecodedValueProblem`).
        case badShape(key: String, DecodedValueProblem)
        /// The decoder failed in a way it does not describe.
        case undecodable
        /// A byte (`board.address`, `board.chipID`) not written like `"0x68"`; `text` is what is there.
        case notAByte(key: String, text: String)
        /// A key (dotted path, at most 80 characters) unknown in its section; `allowed` are the known ones.
        case unknownKey(key: String, allowed: [String])
        /// A value out of its range (`CalibrationProfile.problem`).
        case invalidValue(ProfileValueProblem)
        /// A profile with a value out of its range, not saved.
        case refusingToSave(ProfileValueProblem)
    }
}
