import ArgumentParser
import Tiltboard
import TiltboardCore
import TiltboardDrivers
import TiltboardLinux

struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "Find MPU-6050 and ADXL345 chips on an I²C bus.",
        discussion: """
        Asks 0x68 and 0x69 (MPU-6050, AD0 low/high) and 0x53 and 0x1D (ADXL345, ALT ADDRESS low/high) \
        who they are; --all asks every address from 0x08 to 0x77. `--bus simulated` probes the \
        simulator (an MPU-6050 at 0x68 and an ADXL345 at 0x53). Exits 69 when nothing answers.
        """
    )

    @Option(help: "The I²C bus device, or `simulated`.")
    var bus: String = "/dev/i2c-1"

    @Flag(help: "Probe every address 0x08–0x77, not just the sensors' own.")
    var all = false

    @Flag(help: "One JSON object per device found.")
    var json = false

    func run() throws {
        let i2c: I2CBus = bus == BoardDescription.simulatedBus
            ? SimulatedBoard.probeBus(clock: try CommandClock.clock(simulated: true))
            : try LinuxI2CBus(path: bus)
        let addresses: [UInt8] = all ? Array(0x08...0x77) : [0x68, 0x69, 0x53, 0x1D]
        let found = try ChipKind.probe(bus: i2c, addresses: addresses)
        guard !found.isEmpty else {
            throw CLIError(message: "no device answered on \(bus) at \(addresses.count > 4 ? "0x08–0x77" : addresses.map(\.hex).joined(separator: ", ")): check the wiring (SDA, SCL, 3V3, GND) and that the sensor has power", code: SysExit.unavailable)
        }
        var out = JSONLineWriter()
        for device in found {
            if json {
                out.reset()
                out.beginObject()
                out.plainString("address", device.address.hex)
                if let chip = device.chip { out.plainString("chip", chip.rawValue) }
                out.plainString("part", device.part)
                if let id = device.chipID { out.plainString("chipID", id.hex) }
                out.endObject()
                out.newline()
                Console.out(out.bytes)
            } else {
                let id = device.chipID.map { " (ID \($0.hex))" } ?? ""
                Console.out("\(device.address.hex)  \(device.part)\(id)\n")
            }
        }
    }
}
