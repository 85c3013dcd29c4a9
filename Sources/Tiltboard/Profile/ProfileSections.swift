import Foundation

/// A top-level member of the profile file. Every path that writes a profile names the sections
/// it owns (`ProfileWriter`) and `ProfileStore.save(_:path:sections:)` changes only those: every
/// other member of the file on disk, a section a newer tiltboard added included, is kept byte
/// for byte.
package enum ProfileSection: String, CaseIterable, Sendable, Comparable {
    case board, createdAt, gyroBiasDps, neutral, neutralSource, noiseMg, sampleCount, schemaVersion, sensor, shake, temperatureC

    package static func < (a: ProfileSection, b: ProfileSection) -> Bool { a.rawValue < b.rawValue }
}

/// Every path that writes a profile, and the sections each one owns.
///
/// - `neutralCapture` (`calibrate`, the page's Calibrate, `monitor`'s `c`, the service
///   calibration): the neutral pose and what its capture measured — `neutral`, `neutralSource`,
///   `sampleCount`, `noiseMg`, the capture's `gyroBiasDps`, and the stamp `createdAt`,
///   `temperatureC`.
/// - `zero` (`calibrate --zero`, the page's Zero, `monitor`'s `z`): `neutral` (level),
///   `neutralSource` (removed) and `createdAt`.
/// - `sensorCalibration` (`calibrate --sensor`): `sensor`, the stamp `createdAt`, `temperatureC`;
///   `neutral` re-derived through the new calibration from `neutralSource`; the neutral
///   capture's `gyroBiasDps` removed when the fit measured one (the newer bias is the fit's).
/// - `shake` (`profile shake`, `POST /api/shake`): `shake` alone.
///
/// `schemaVersion` and `board` are written only with a new profile. The profile watch of a
/// running loop reads the file and never writes it.
package enum ProfileWriter: String, CaseIterable, Sendable {
    case neutralCapture, zero, sensorCalibration, shake

    /// The sections this writer may change.
    package var sections: Set<ProfileSection> {
        switch self {
        case .neutralCapture: return [.neutral, .neutralSource, .sampleCount, .noiseMg, .gyroBiasDps, .createdAt, .temperatureC]
        case .zero: return [.neutral, .neutralSource, .createdAt]
        case .sensorCalibration: return [.sensor, .neutral, .gyroBiasDps, .createdAt, .temperatureC]
        case .shake: return [.shake]
        }
    }
}

/// The top-level members of a JSON object as they are in its bytes: each key with the exact
/// bytes of its value, in file order.
struct JSONMembers {
    struct Member {
        var key: String
        /// The key as written, quotes included.
        var rawKey: ArraySlice<UInt8>
        var rawValue: ArraySlice<UInt8>
    }

    var members: [Member]

    /// The members of `bytes`, a document that is one JSON object; nil when it is not one (the
    /// caller has parsed it already: this only finds where each member's bytes are).
    init?(_ bytes: [UInt8]) {
        var i = 0
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        func skipString() -> Bool {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return false }
            i += 1
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            guard i < bytes.count else { return false }
            i += 1
            return true
        }
        func skipValue() -> Bool {
            var depth = 0
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    if depth == 0 { return true }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return true }
                    depth -= 1
                    if depth == 0 { i += 1; return true }
                case UInt8(ascii: ","):
                    if depth == 0 { return true }
                case 0x20, 0x09, 0x0A, 0x0D:
                    if depth == 0 { return true }
                default:
                    break
                }
                i += 1
            }
            return depth == 0
        }
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        members = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { return }
        while true {
            skipSpace()
            let keyStart = i
            guard skipString() else { return nil }
            let rawKey = bytes[keyStart..<i]
            guard let key = (try? JSONSerialization.jsonObject(with: Data(rawKey), options: [.fragmentsAllowed])) as? String else { return nil }
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            let valueStart = i
            guard skipValue(), i > valueStart else { return nil }
            members.append(Member(key: key, rawKey: rawKey, rawValue: bytes[valueStart..<i]))
            skipSpace()
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    func value(_ key: String) -> ArraySlice<UInt8>? { members.first { $0.key == key }?.rawValue }

    /// The object laid out as `ProfileStore.encode` lays out a profile: one member a line,
    /// two spaces in, `"key" : value`, a final newline. Values are the exact bytes held.
    var bytes: [UInt8] {
        var out = Array("{\n".utf8)
        for (n, m) in members.enumerated() {
            out += Array("  ".utf8) + Array(m.rawKey) + Array(" : ".utf8) + Array(m.rawValue)
            out += Array((n == members.count - 1 ? "\n" : ",\n").utf8)
        }
        return out + Array("}\n".utf8)
    }
}

extension ProfileStore {
    /// `existing` (the file on disk) with `sections` taken from `update` (the full encoding of the
    /// profile being saved): a section present in `update` replaces or joins the file's, one
    /// absent from it is removed; a section whose value is unchanged keeps its bytes, and every
    /// other member stays as it is, byte for byte, in its place. nil when `existing` is not one
    /// JSON object.
    static func splice(existing: [UInt8], update: [UInt8], sections: Set<ProfileSection>) -> [UInt8]? {
        guard var file = JSONMembers(existing), let new = JSONMembers(update) else { return nil }
        let owned = Set(sections.map(\.rawValue))
        let before = file.members
        file.members.removeAll { m in
            owned.contains(m.key) && new.value(m.key) == nil
        }
        for m in new.members where owned.contains(m.key) {
            if let at = file.members.firstIndex(where: { $0.key == m.key }) {
                if !sameValue(file.members[at].rawValue, m.rawValue) { file.members[at].rawValue = m.rawValue }
            } else {
                // A new member goes where the sorted order of a file written by this program puts it.
                let at = file.members.firstIndex { $0.key > m.key } ?? file.members.count
                file.members.insert(m, at: at)
            }
        }
        if file.members.map(\.key) == before.map(\.key),
           zip(file.members, before).allSatisfy({ $0.rawValue.elementsEqual($1.rawValue) }) {
            return existing
        }
        return file.bytes
    }

    /// Two JSON values that mean the same (`1.0` and `1`, other spacing) count as unchanged.
    private static func sameValue(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        if a.elementsEqual(b) { return true }
        let options: JSONSerialization.ReadingOptions = [.fragmentsAllowed]
        guard let x = try? JSONSerialization.jsonObject(with: Data(a), options: options),
              let y = try? JSONSerialization.jsonObject(with: Data(b), options: options) else { return false }
        return (x as? NSObject)?.isEqual(y) ?? false
    }
}
