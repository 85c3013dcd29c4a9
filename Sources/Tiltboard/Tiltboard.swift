// `import Tiltboard` brings in every layer a program embedding the package needs.
@_exported import TiltboardCore
@_exported import TiltboardDrivers
@_exported import TiltboardSimulator
@_exported import TiltboardLinux
