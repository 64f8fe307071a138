import Testing
import TouchValues

@testable import TouchInput
@testable import VirtualDevices

/// Device units → surface → millimetres (docs/INPUT.md, "Coordinates").
@Suite struct GeometryTests {
    let x = AbsInfo(minimum: 1000, maximum: 2500, resolution: 10)
    let y = AbsInfo(minimum: 2000, maximum: 4500, resolution: 10)

    @Test("the axis range maps onto 0…1, with values beyond it clamped (litest's invalid-range panel)")
    func normalisation() {
        let m = CoordinateMapper(xAxis: x, yAxis: y)
        #expect(m.surfacePoint(x: 1000, y: 2000) == SurfacePoint(x: 0, y: 0))
        #expect(m.surfacePoint(x: 2500, y: 4500) == SurfacePoint(x: 1, y: 1))
        #expect(m.surfacePoint(x: 1750, y: 3250) == SurfacePoint(x: 0.5, y: 0.5))
        #expect(m.surfacePoint(x: 0, y: 9000) == SurfacePoint(x: 0, y: 1))
    }

    @Test("devicePoint inverts surfacePoint, rotation included", arguments: Rotation.allCases)
    func inverse(_ rotation: Rotation) {
        let m = CoordinateMapper(xAxis: x, yAxis: y, rotation: rotation)
        for p in [SurfacePoint(x: 0.1, y: 0.7), SurfacePoint(x: 0.9, y: 0.2), SurfacePoint(x: 0, y: 1)] {
            #expect(near(m.surfacePoint(m.devicePoint(p)), p, 1e-3))
        }
    }

    @Test("a configured rotation equals libinput's matrix for it")
    func rotationMatchesCalibration() {
        let rotated = CoordinateMapper(xAxis: x, yAxis: y, rotation: .clockwise90)
        let calibrated = CoordinateMapper(
            xAxis: x, yAxis: y, calibration: CalibrationMatrix(udevProperty: "0 -1 1 1 0 0")!)
        #expect(rotated.surfacePoint(x: 1300, y: 4000) == calibrated.surfacePoint(x: 1300, y: 4000))
    }

    @Test("LIBINPUT_CALIBRATION_MATRIX: six numbers, or ignored with a warning")
    func calibrationProperty() throws {
        #expect(CalibrationMatrix(udevProperty: "1 0 0 0 1 0") == .identity)
        #expect(
            CalibrationMatrix(udevProperty: " 1.1\t0 -0.05 0 1.1 -0.05 ")
                == CalibrationMatrix(1.1, 0, -0.05, 0, 1.1, -0.05))
        #expect(CalibrationMatrix(udevProperty: "1 0 0 0 1") == nil)
        #expect(CalibrationMatrix(udevProperty: "1 0 0 0 1 nan") == nil)
        let model = try TouchscreenModel(
            description: DeviceProfile.kiosk10.capabilities(), udev: UdevHints(calibrationMatrix: "garbage"))
        #expect(model.mapper.calibration == .identity)
        #expect(model.warnings.contains { $0.contains("LIBINPUT_CALIBRATION_MATRIX") })
        let configured = try TouchscreenModel(
            description: DeviceProfile.kiosk10.capabilities(),
            settings: DeviceSettings(calibration: CalibrationMatrix(2, 0, 0, 0, 2, 0)),
            udev: UdevHints(calibrationMatrix: "1 0 0 0 1 0"))
        #expect(configured.calibrationSource == "configuration")
        #expect(configured.mapper.surfacePoint(x: 0, y: 0) == SurfacePoint(x: 0, y: 0))
        let doubled = 2 * 8192.0 / 32767
        #expect(near(configured.mapper.surfacePoint(x: 8192, y: 8192), SurfacePoint(x: doubled, y: doubled)))
    }

    @Test("size from resolution, rotated when the panel is")
    func sizeFromResolution() {
        let s = SurfaceSize(
            xAxis: x, yAxis: y, configured: nil, udevWidth: nil, udevHeight: nil, rotation: .clockwise90)
        #expect(s.source == .resolution)
        #expect(s.geometry.physicalSize == PhysicalSize(width: Millimeters(250), height: Millimeters(150)))
    }

    @Test("configuration beats resolution beats udev; absurd sizes are rejected with a reason")
    func sizeSources() {
        let absurd = AbsInfo(minimum: 0, maximum: 32767, resolution: 1)  // 33 m
        let s = SurfaceSize(
            xAxis: absurd, yAxis: absurd, configured: PhysicalSize(width: Millimeters(5), height: Millimeters(3)),
            udevWidth: 400, udevHeight: 300, rotation: .none)
        #expect(s.source == .udev)
        #expect(s.geometry.physicalSize == PhysicalSize(width: Millimeters(400), height: Millimeters(300)))
        #expect(s.rejected.count == 2)
        #expect(s.rejected[0].hasPrefix("configuration size 5×3 mm rejected"))
        #expect(s.rejected[1].hasPrefix("resolution size 32767×32767 mm rejected"))
        let narrow = SurfaceSize(
            xAxis: x, yAxis: y, configured: PhysicalSize(width: Millimeters(2000), height: Millimeters(100)),
            udevWidth: nil, udevHeight: nil, rotation: .none)
        #expect(narrow.rejected.first?.contains("aspect ratio") == true)
        #expect(narrow.source == .resolution)
    }

    @Test("without any size, thresholds use the assumed width and the axis aspect")
    func unknownSize() {
        let noRes = AbsInfo(minimum: 0, maximum: 1919)
        let s = SurfaceSize(
            xAxis: noRes, yAxis: AbsInfo(minimum: 0, maximum: 1079), configured: nil, udevWidth: nil, udevHeight: nil,
            rotation: .none)
        #expect(s.source == .unknown)
        #expect(s.geometry.physicalSize == nil)
        #expect(s.geometry.measuringSize.width == SurfaceGeometry.assumedWidth)
        #expect(abs(s.geometry.measuringSize.height.value - 344 * 1079 / 1919) < 1e-9)
    }
}
