import Tiltboard
import TiltboardCore
import TiltboardCommands
import TiltboardDrivers

// How the command line words what the library reports as kinds and fields.

extension BusStatistics: CustomStringConvertible {
    /// `bus errors 3, outages 1, reconfigurations 1`.
    public var description: String {
        "bus errors \(busErrors), outages \(outages), reconfigurations \(reconfigurations)"
    }
}

extension BoardWarning {
    /// The warning's line on stderr.
    var line: String {
        switch self {
        case let .cloneChip(identity): return identity.warning.map { ErrorWording.cloneWarning($0, of: identity) } ?? "the chip answered with the clone ID \(identity.chipID.hex)"
        }
    }
}
