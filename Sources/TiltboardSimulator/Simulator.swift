/// Register-accurate simulations of the MPU-6050, the ADXL345 and a GPIO line.
public enum TiltboardSimulator {}
