import Foundation
import TiltboardCore

extension MotionScript: Codable {
    private enum Keys: String, CodingKey { case start, tempC, segments }
    private enum SegmentKind: String, CodingKey, CaseIterable { case hold, rotate, shake, tap, putDown, walk, move, circle, wristShake }
    private enum Field: String, CodingKey {
        case pitchDeg, rollDeg, seconds, axis, frequencyHz, peakG, spikeSeconds, impactG, bounceG, stepHz
        case accelSeconds, stopSeconds, rebound, across, turns, aspect, pivot, swingDeg
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let start = try c.decodeIfPresent(TiltAngles.self, forKey: .start) ?? TiltAngles(pitchDeg: 0, rollDeg: 0)
        let tempC = try c.decodeIfPresent(Double.self, forKey: .tempC) ?? 25
        var list = try c.nestedUnkeyedContainer(forKey: .segments)
        var segments: [Segment] = []
        var pose = start
        while !list.isAtEnd {
            let number = segments.count + 1
            let item = try list.nestedContainer(keyedBy: SegmentKind.self)
            guard item.allKeys.count == 1, let kind = item.allKeys.first else {
                throw MotionScriptError(.segmentKey(segment: number, kinds: SegmentKind.allCases.map(\.rawValue)))
            }
            let f = try item.nestedContainer(keyedBy: Field.self, forKey: kind)
            let seconds = try f.decode(Double.self, forKey: .seconds)
            func angles() throws -> TiltAngles {
                TiltAngles(pitchDeg: try f.decodeIfPresent(Double.self, forKey: .pitchDeg) ?? pose.pitchDeg,
                           rollDeg: try f.decodeIfPresent(Double.self, forKey: .rollDeg) ?? pose.rollDeg)
            }
            let segment: Segment
            switch kind {
            case .hold:
                pose = try angles()
                segment = .hold(pose, seconds: seconds)
            case .rotate:
                pose = try angles()
                segment = .rotate(to: pose, seconds: seconds)
            case .shake:
                segment = .shake(axis: try f.decode(Vector3.self, forKey: .axis),
                                 frequencyHz: try f.decode(Double.self, forKey: .frequencyHz),
                                 peakG: try f.decode(Double.self, forKey: .peakG), seconds: seconds)
            case .tap:
                segment = .tap(axis: try f.decodeIfPresent(Vector3.self, forKey: .axis) ?? .unitZ,
                               peakG: try f.decodeIfPresent(Double.self, forKey: .peakG) ?? 3,
                               spikeSeconds: try f.decodeIfPresent(Double.self, forKey: .spikeSeconds) ?? 0.02,
                               seconds: seconds)
            case .putDown:
                segment = .putDown(impactG: try f.decodeIfPresent(Double.self, forKey: .impactG) ?? 1.5, seconds: seconds)
            case .walk:
                segment = .walk(bounceG: try f.decodeIfPresent(Double.self, forKey: .bounceG) ?? 0.67,
                                stepHz: try f.decodeIfPresent(Double.self, forKey: .stepHz) ?? 1.92, seconds: seconds)
            case .move:
                segment = .move(axis: try f.decode(Vector3.self, forKey: .axis),
                                peakG: try f.decode(Double.self, forKey: .peakG),
                                accelSeconds: try f.decodeIfPresent(Double.self, forKey: .accelSeconds) ?? 0.25,
                                stopSeconds: try f.decodeIfPresent(Double.self, forKey: .stopSeconds) ?? 0.25,
                                rebound: try f.decodeIfPresent(Double.self, forKey: .rebound) ?? 0, seconds: seconds)
            case .circle:
                segment = .circle(axis: try f.decodeIfPresent(Vector3.self, forKey: .axis) ?? Vector3(1, 0, 0),
                                  across: try f.decodeIfPresent(Vector3.self, forKey: .across) ?? Vector3(0, 0, 1),
                                  turns: try f.decodeIfPresent(Double.self, forKey: .turns) ?? 1,
                                  peakG: try f.decode(Double.self, forKey: .peakG),
                                  aspect: try f.decodeIfPresent(Double.self, forKey: .aspect) ?? 1, seconds: seconds)
            case .wristShake:
                segment = .wristShake(axis: try f.decode(Vector3.self, forKey: .axis),
                                      pivot: try f.decodeIfPresent(Vector3.self, forKey: .pivot) ?? Vector3(0, -1, 0),
                                      frequencyHz: try f.decode(Double.self, forKey: .frequencyHz),
                                      peakG: try f.decode(Double.self, forKey: .peakG),
                                      swingDeg: try f.decodeIfPresent(Double.self, forKey: .swingDeg) ?? 18.5,
                                      seconds: seconds)
            }
            segments.append(segment)
        }
        try self.init(start: start, tempC: tempC, segments: segments)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(start, forKey: .start)
        try c.encode(tempC, forKey: .tempC)
        var list = c.nestedUnkeyedContainer(forKey: .segments)
        for segment in segments {
            var item = list.nestedContainer(keyedBy: SegmentKind.self)
            switch segment.raw {
            case let .hold(p, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .hold)
                try f.encode(p.pitchDeg, forKey: .pitchDeg); try f.encode(p.rollDeg, forKey: .rollDeg)
                try f.encode(s, forKey: .seconds)
            case let .rotate(p, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .rotate)
                try f.encode(p.pitchDeg, forKey: .pitchDeg); try f.encode(p.rollDeg, forKey: .rollDeg)
                try f.encode(s, forKey: .seconds)
            case let .shake(axis, hz, peak, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .shake)
                try f.encode(axis, forKey: .axis); try f.encode(hz, forKey: .frequencyHz)
                try f.encode(peak, forKey: .peakG); try f.encode(s, forKey: .seconds)
            case let .tap(axis, peak, spike, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .tap)
                try f.encode(axis, forKey: .axis); try f.encode(peak, forKey: .peakG)
                try f.encode(spike, forKey: .spikeSeconds); try f.encode(s, forKey: .seconds)
            case let .putDown(impact, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .putDown)
                try f.encode(impact, forKey: .impactG); try f.encode(s, forKey: .seconds)
            case let .walk(bounce, hz, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .walk)
                try f.encode(bounce, forKey: .bounceG); try f.encode(hz, forKey: .stepHz)
                try f.encode(s, forKey: .seconds)
            case let .move(axis, peak, accelSeconds, stopSeconds, rebound, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .move)
                try f.encode(axis, forKey: .axis); try f.encode(peak, forKey: .peakG)
                try f.encode(accelSeconds, forKey: .accelSeconds); try f.encode(stopSeconds, forKey: .stopSeconds)
                try f.encode(rebound, forKey: .rebound); try f.encode(s, forKey: .seconds)
            case let .circle(axis, across, turns, peak, aspect, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .circle)
                try f.encode(axis, forKey: .axis); try f.encode(across, forKey: .across)
                try f.encode(turns, forKey: .turns); try f.encode(peak, forKey: .peakG)
                try f.encode(aspect, forKey: .aspect); try f.encode(s, forKey: .seconds)
            case let .wristShake(axis, pivot, hz, peak, swing, s):
                var f = item.nestedContainer(keyedBy: Field.self, forKey: .wristShake)
                try f.encode(axis, forKey: .axis); try f.encode(pivot, forKey: .pivot)
                try f.encode(hz, forKey: .frequencyHz); try f.encode(peak, forKey: .peakG)
                try f.encode(swing, forKey: .swingDeg); try f.encode(s, forKey: .seconds)
            }
        }
    }

    /// Parses the JSON form; the error names the segment or the JSON path at fault.
    public init(jsonData: Data) throws {
        do {
            self = try JSONDecoder().decode(MotionScript.self, from: jsonData)
        } catch var error as MotionScriptError {
            error.inJSON = true
            throw error
        } catch let error as DecodingError {
            throw MotionScriptError(Self.problem(error), inJSON: true)
        }
    }

    /// The JSON form, keys sorted so equal scripts give equal bytes.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The decoder's failure as a problem: a JSON path like `.segments[0].shake`, empty at the top level.
    private static func problem(_ error: DecodingError) -> MotionScriptError.Problem {
        func path(_ p: [CodingKey]) -> String {
            p.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case let .keyNotFound(key, ctx):
            return .missingKey(key: key.stringValue, path: path(ctx.codingPath))
        case let .typeMismatch(_, ctx), let .valueNotFound(_, ctx):
            return .wrongType(path: path(ctx.codingPath), detail: ctx.debugDescription)
        case let .dataCorrupted(ctx) where ctx.underlyingError is DecodedValueProblem:
            return .badShape(path: path(ctx.codingPath), ctx.underlyingError as! DecodedValueProblem)
        case let .dataCorrupted(ctx):
            return .invalidJSON(path: path(ctx.codingPath), detail: ctx.debugDescription,
                                underlying: ctx.underlyingError.map { $0.localizedDescription })
        @unknown default:
            return .undecodable(detail: "\(error)")
        }
    }
}
