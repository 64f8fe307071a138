import TouchValues
import Testing

@testable import TouchInput

/// Matching configuration entries to devices by name glob, vendor:product and stable path.
@Suite struct DeviceMatchTests {
    let identity = DeviceIdentity(
        name: "eGalax Inc. USB TouchController", id: InputID(bustype: 3, vendor: 0x0eef, product: 0x72a1),
        devnode: "/dev/input/event7", idPath: "pci-0000:00:14.0-usb-0:2:1.0",
        links: ["/dev/input/by-id/usb-eGalax_Inc._USB_TouchController-event-if00"], phys: "usb-0000:00:14.0-2/input0")

    @Test("each key alone, and all keys together")
    func keys() {
        #expect(DeviceMatch().matches(identity))
        #expect(DeviceMatch(name: "eGalax*").matches(identity))
        #expect(!DeviceMatch(name: "3M*").matches(identity))
        #expect(DeviceMatch(name: "*Touch[Cc]ontroller").matches(identity))
        #expect(DeviceMatch(vendor: 0x0eef, product: 0x72a1).matches(identity))
        #expect(!DeviceMatch(vendor: 0x0eef, product: 0x0001).matches(identity))
        #expect(DeviceMatch(path: "pci-0000:00:14.0-usb-0:2:1.0").matches(identity))
        #expect(DeviceMatch(path: "/dev/input/by-id/usb-eGalax_Inc._USB_TouchController-event-if00").matches(identity))
        #expect(DeviceMatch(path: "usb-0000:00:14.0-2/input0").matches(identity))
        #expect(!DeviceMatch(path: "pci-0000:00:14.0-usb-0:3:1.0").matches(identity))
        #expect(DeviceMatch(name: "eGalax*", vendor: 0x0eef, path: "pci-0000:00:14.0-usb-0:2:1.0").matches(identity))
        #expect(!DeviceMatch(name: "eGalax*", vendor: 0x0001).matches(identity))
    }

    @Test("vendor:product parsing")
    func vendorProduct() {
        #expect(USBID("0eef:72a1") == USBID(vendor: 0x0eef, product: 0x72a1))
        #expect(USBID("EEF:72A1")?.description == "0eef:72a1")
        #expect(USBID("0eef") == nil)
        #expect(USBID("xyz:1") == nil)
    }

    @Test("the first matching rule wins; no match gives the defaults")
    func firstRuleWins() {
        let rules = [
            DeviceRule(match: DeviceMatch(name: "3M*"), settings: DeviceSettings(rotation: .clockwise90)),
            DeviceRule(match: DeviceMatch(vendor: 0x0eef), settings: DeviceSettings(rotation: .clockwise180)),
            DeviceRule(match: DeviceMatch(), settings: DeviceSettings(rotation: .clockwise270)),
        ]
        #expect(rules.settings(for: identity).rotation == .clockwise180)
        #expect([DeviceRule]().settings(for: identity) == DeviceSettings())
    }
}
