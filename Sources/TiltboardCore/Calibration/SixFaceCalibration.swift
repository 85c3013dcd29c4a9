/// Which board axis points up (its gravity reaction reads +1 g on that axis).
public enum BoardFace: String, CaseIterable, Codable, Sendable {
    /// The face pointing up: the axis and its sign (`+Z` is the board lying flat, face up).
    case xUp = "+X", xDown = "-X", yUp = "+Y", yDown = "-Y", zUp = "+Z", zDown = "-Z"

    /// Axis index, 0 = X.
    package var axis: Int {
        switch self {
        case .xUp, .xDown: return 0
        case .yUp, .yDown: return 1
        case .zUp, .zDown: return 2
        }
    }

    /// +1 for the `Up` faces, −1 for the `Down` faces.
    package var sign: Double {
        switch self {
        case .xUp, .yUp, .zUp: return 1
        case .xDown, .yDown, .zDown: return -1
        }
    }

    /// The ideal gravity reaction in this orientation, in g.
    public var ideal: Vector3 {
        var v = Vector3.zero
        v[axis] = sign
        return v
    }

    /// The face a still reading lies on, or nil when no axis clearly dominates: the dominant
    /// component must be at least 0.8·|g| and the others at most 0.35·|g| (about 20° off-axis).
    public static func classify(meanG: Vector3) -> BoardFace? {
        let g = meanG.length
        guard g > 0.3, g.isFinite else { return nil }
        let a = Vector3(Swift.abs(meanG.x), Swift.abs(meanG.y), Swift.abs(meanG.z))
        let axis = StillnessCriteria.worstAxis(a)
        guard a[axis] >= 0.8 * g else { return nil }
        for other in 0..<3 where other != axis {
            if a[other] > 0.35 * g { return nil }
        }
        let up = meanG[axis] > 0
        switch axis {
        case 0: return up ? .xUp : .xDown
        case 1: return up ? .yUp : .yDown
        default: return up ? .zUp : .zDown
        }
    }
}

/// The outcome of a six-face fit with its quality figures.
public struct SixFaceResult: Sendable, Equatable {
    /// The fitted correction.
    public var calibration: SensorCalibration
    /// RMS over the six faces of |corrected mean − ideal ±1 g axis vector|, in mg.
    public var residualMg: Double
    /// The worst face's |corrected mean − ideal|, in mg.
    public var maxResidualMg: Double
    /// Each face's |corrected mean − ideal|, in mg.
    public var faceResidualsMg: [BoardFace: Double]
}

/// Collects the board's six still orientations and fits offset and sensitivity per axis.
///
/// Fit choice: each face is assumed to lie squarely on a level surface, so its true gravity is
/// exactly ±1 g along its own axis and 0 on the other two. That yields 18 linear component
/// equations for 6 unknowns (12 with cross-axis terms), solved in closed form by least squares:
/// no iteration that can fail to converge, and a residual with 12 (6) degrees of freedom that
/// measures noise, placement error and non-linearity. A sphere fit (|D·(r − o)| = 1) through six
/// means would be exactly determined, so its residual would always be zero and prove nothing.
/// Cost: a face placed 1° off level (≈ 17 mg) leaks a few mg into the offsets, which the
/// residual limit bounds.
public struct SixFaceCalibrator: Sendable {
    /// Acceptance limits for a fit.
    public struct Limits: Sendable, Equatable, Codable {
        /// Largest accepted RMS residual, in mg.
        public var maxResidualMg: Double
        /// Accepted sensitivity relative to nominal.
        public var scaleRange: ClosedRange<Double>
        /// Largest accepted |offset| per axis, in g.
        public var maxOffsetG: Double
        /// Largest accepted off-diagonal cross-axis term.
        public var maxCrossAxis: Double

        /// Defaults: 15 mg residual (≈ 0.9° placement), scale 0.8…1.2, offset 0.5 g, cross-axis 0.1.
        public init(maxResidualMg: Double = 15, scaleRange: ClosedRange<Double> = 0.8...1.2,
                    maxOffsetG: Double = 0.5, maxCrossAxis: Double = 0.1) {
            self.maxResidualMg = maxResidualMg; self.scaleRange = scaleRange
            self.maxOffsetG = maxOffsetG; self.maxCrossAxis = maxCrossAxis
        }
    }

    /// One accepted orientation.
    package struct FaceCapture: Sendable, Equatable {
        /// Mean acceleration, in g.
        package var meanG: Vector3
        /// Samples behind the mean.
        package var samples: Int
        /// Mean gyro rate, in °/s, when the chip has a gyro.
        package var gyroMeanDps: Vector3?
        /// Samples behind the gyro mean.
        package var gyroSamples: Int
    }

    /// Stillness required of each capture passed as statistics.
    public var criteria: StillnessCriteria
    /// Acceptance limits for `fit`.
    public var limits: Limits
    /// The faces captured so far.
    package private(set) var faces: [BoardFace: FaceCapture] = [:]

    /// An empty calibrator.
    public init(criteria: StillnessCriteria = StillnessCriteria(), limits: Limits = Limits()) {
        self.criteria = criteria; self.limits = limits
    }

    /// True once all six faces are captured.
    public var isComplete: Bool { faces.count == BoardFace.allCases.count }
    /// Faces still to capture, in `BoardFace.allCases` order.
    public var missingFaces: [BoardFace] { BoardFace.allCases.filter { faces[$0] == nil } }

    /// Adds a capture that should lie on `face`; checks stillness and orientation.
    package mutating func add(face: BoardFace, stats: RunningStats3, gyro: RunningStats3? = nil) throws {
        if let failure = criteria.check(accel: stats, gyro: gyro) { throw CalibrationError.notStill(failure) }
        let gyroStats = (gyro?.count ?? 0) > 0 ? gyro : nil
        try add(face: face, meanG: stats.mean, samples: stats.count,
                gyroMeanDps: gyroStats?.mean, gyroSamples: gyroStats?.count ?? 0)
    }

    /// Adds a capture on whichever face it lies on and returns that face.
    @discardableResult
    package mutating func add(stats: RunningStats3, gyro: RunningStats3? = nil) throws -> BoardFace {
        guard let face = BoardFace.classify(meanG: stats.mean) else {
            throw CalibrationError.ambiguousOrientation(meanG: stats.mean)
        }
        try add(face: face, stats: stats, gyro: gyro)
        return face
    }

    /// Adds a capture already reduced to means (no stillness check possible).
    public mutating func add(face: BoardFace, meanG: Vector3, samples: Int, gyroMeanDps: Vector3? = nil,
                             gyroSamples: Int = 0) throws {
        guard faces[face] == nil else { throw CalibrationError.repeatedFace(face) }
        guard let measured = BoardFace.classify(meanG: meanG) else {
            throw CalibrationError.ambiguousOrientation(meanG: meanG)
        }
        guard measured == face else { throw CalibrationError.wrongFace(expected: face, measured: measured) }
        faces[face] = FaceCapture(meanG: meanG, samples: samples, gyroMeanDps: gyroMeanDps,
                                  gyroSamples: gyroMeanDps == nil ? 0 : Swift.max(1, gyroSamples))
    }

    /// Forgets one face so it can be captured again.
    package mutating func remove(face: BoardFace) { faces[face] = nil }

    /// Fits the calibration and checks it against `limits`; throws with the figures if it fails.
    public func fit(withCrossAxis: Bool = false) throws -> SixFaceResult {
        let missing = missingFaces
        guard missing.isEmpty else { throw CalibrationError.missingFaces(missing) }
        var calibration = withCrossAxis ? try fitAffine() : try fitDiagonal()
        calibration.gyroBiasDps = gyroBias()

        var sumSq = 0.0, worst = 0.0
        var perFace: [BoardFace: Double] = [:]
        for face in BoardFace.allCases {
            guard let capture = faces[face] else { continue }
            let err = (calibration.apply(accel: capture.meanG) - face.ideal).length * 1000
            perFace[face] = err
            sumSq += err * err
            worst = Swift.max(worst, err)
        }
        let rms = (sumSq / Double(perFace.count)).squareRoot()
        let result = SixFaceResult(calibration: calibration, residualMg: rms, maxResidualMg: worst,
                                   faceResidualsMg: perFace)
        try check(result)
        return result
    }

    private func check(_ result: SixFaceResult) throws {
        let c = result.calibration
        for axis in 0..<3 {
            if !limits.scaleRange.contains(c.scale[axis]) {
                throw CalibrationError.scaleOutOfRange(axis: axis, scale: c.scale[axis], range: limits.scaleRange)
            }
            if !(Swift.abs(c.offsetG[axis]) < limits.maxOffsetG) {
                throw CalibrationError.offsetOutOfRange(axis: axis, offsetG: c.offsetG[axis], limitG: limits.maxOffsetG)
            }
        }
        if let m = c.crossAxis {
            let rows = [m.r0, m.r1, m.r2]
            for r in 0..<3 {
                for col in 0..<3 where col != r && !(Swift.abs(rows[r][col]) <= limits.maxCrossAxis) {
                    throw CalibrationError.crossAxisOutOfRange(row: r, column: col, value: rows[r][col],
                                                               limit: limits.maxCrossAxis)
                }
            }
        }
        guard result.residualMg < limits.maxResidualMg else {
            throw CalibrationError.residualTooLarge(rmsMg: result.residualMg, maxMg: result.maxResidualMg,
                                                    limitMg: limits.maxResidualMg)
        }
    }

    /// Per axis i: r_f,i = s_i·e_f,i + o_i over the six faces (e = ideal), by least squares.
    private func fitDiagonal() throws -> SensorCalibration {
        var offset = Vector3.zero, scale = Vector3.one
        for axis in 0..<3 {
            var see = 0.0, se = 0.0, n = 0.0, ser = 0.0, sr = 0.0
            for face in BoardFace.allCases {
                guard let capture = faces[face] else { continue }
                let e = face.ideal[axis], r = capture.meanG[axis]
                see += e * e; se += e; n += 1; ser += e * r; sr += r
            }
            let det = see * n - se * se
            guard Swift.abs(det) > 1e-12 else { throw CalibrationError.singularFit }
            scale[axis] = (ser * n - se * sr) / det
            offset[axis] = (see * sr - se * ser) / det
        }
        return SensorCalibration(offsetG: offset, scale: scale)
    }

    /// Per output row i: e_f,i = a_i·r_f + b_i (an affine map A·r + b), by least squares; then
    /// split into offset o = −A⁻¹b, scale s_j = 1/A_jj and cross-axis C = A·diag(s) (unit diagonal).
    private func fitAffine() throws -> SensorCalibration {
        // Normal matrix XᵀX with rows x_f = (r_f, 1); shared by the three output rows.
        var xtx = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 4)
        var xty = [[Double]](repeating: [Double](repeating: 0, count: 4), count: 3)
        // Fixed face order so the result is bit-for-bit repeatable (dictionary order is not).
        for face in BoardFace.allCases {
            guard let capture = faces[face] else { continue }
            let x = [capture.meanG.x, capture.meanG.y, capture.meanG.z, 1]
            for i in 0..<4 {
                for j in 0..<4 { xtx[i][j] += x[i] * x[j] }
                for row in 0..<3 { xty[row][i] += x[i] * face.ideal[row] }
            }
        }
        var rows: [Vector3] = []
        var b = Vector3.zero
        for row in 0..<3 {
            guard let sol = solve4(xtx, xty[row]) else { throw CalibrationError.singularFit }
            rows.append(Vector3(sol[0], sol[1], sol[2]))
            b[row] = sol[3]
        }
        let a = Matrix3(rows: rows[0], rows[1], rows[2])
        guard let aInv = a.inverse else { throw CalibrationError.singularFit }
        let offset = -(aInv * b)
        let scale = Vector3(1 / a.r0.x, 1 / a.r1.y, 1 / a.r2.z)
        let cross = a * Matrix3(diagonal: scale)
        return SensorCalibration(offsetG: offset, scale: scale, crossAxis: cross)
    }

    /// Count-weighted mean gyro over all captures that had one.
    private func gyroBias() -> Vector3? {
        var sum = Vector3.zero, n = 0
        for face in BoardFace.allCases {
            guard let capture = faces[face], let g = capture.gyroMeanDps else { continue }
            sum += g * Double(capture.gyroSamples)
            n += capture.gyroSamples
        }
        return n > 0 ? sum / Double(n) : nil
    }
}

/// Solves the 4×4 system m·x = y by Gaussian elimination with partial pivoting; nil if singular.
private func solve4(_ m: [[Double]], _ y: [Double]) -> [Double]? {
    var a = m, v = y
    for col in 0..<4 {
        var pivot = col
        for r in (col + 1)..<4 where Swift.abs(a[r][col]) > Swift.abs(a[pivot][col]) { pivot = r }
        guard Swift.abs(a[pivot][col]) > 1e-12 else { return nil }
        a.swapAt(col, pivot); v.swapAt(col, pivot)
        for r in (col + 1)..<4 {
            let f = a[r][col] / a[col][col]
            for c in col..<4 { a[r][c] -= f * a[col][c] }
            v[r] -= f * v[col]
        }
    }
    var x = [Double](repeating: 0, count: 4)
    for r in stride(from: 3, through: 0, by: -1) {
        var s = v[r]
        for c in (r + 1)..<4 { s -= a[r][c] * x[c] }
        x[r] = s / a[r][r]
    }
    return x
}
